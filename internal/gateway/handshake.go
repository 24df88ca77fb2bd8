package gateway

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// connectParams are the parts of `connect` switchboard reads; the rest
// (client info, caps, device identity) is accepted and ignored.
type connectParams struct {
	MinProtocol *int64   `json:"minProtocol"`
	MaxProtocol *int64   `json:"maxProtocol"`
	Role        string   `json:"role"`
	Scopes      []string `json:"scopes"`
	Client      struct {
		ID      string `json:"id"`
		Version string `json:"version"`
		Mode    string `json:"mode"`
	} `json:"client"`
	Auth struct {
		Token string `json:"token"`
	} `json:"auth"`
}

// handshake reads the first frame, which must be `connect`, and answers
// hello-ok. It reports whether the connection may go on; on failure it has
// already answered and closed.
func (c *conn) handshake() bool {
	// state: 0 while reading, 1 once the first frame arrived, 2 timed out.
	var state atomic.Int32
	read := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTimer(c.s.opts.HandshakeTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			if state.CompareAndSwap(0, 2) {
				c.s.log.Debug("gateway handshake timed out", "remote", c.remote)
				c.close(websocket.StatusPolicyViolation, "handshake timeout")
			}
		case <-read:
		case <-c.ctx.Done():
		}
	}()
	typ, data, err := c.ws.Read(c.ctx)
	close(read)
	if !state.CompareAndSwap(0, 1) {
		return false
	}
	if err != nil {
		return false
	}
	f, p, proto, fault := readConnect(typ, data)
	if fault != nil {
		return c.refuseFrame(f, fault)
	}
	g, ok := c.s.auth.check(p.Auth.Token)
	if !ok {
		msg := "unauthorized: gateway token mismatch"
		if p.Auth.Token == "" {
			msg = "unauthorized: gateway token missing (send auth.token)"
		}
		c.s.log.Info("gateway client refused", "remote", c.remote, "reason", msg)
		return c.refuseFrame(f, &frameFault{close: websocket.StatusPolicyViolation, reason: "unauthorized", err: domain.Invalid("%s", msg)})
	}
	c.protocol = int(proto)
	c.grant = g.narrow(p.Scopes)
	held := holdCred(p.Auth.Token, p.Scopes, c.grant)
	c.held.Store(&held)
	// A reload between the check above and the store would have missed
	// this connection: check once more against the tokens now in force.
	if !c.s.auth.p.Load().stillGranted(held) {
		c.close(websocket.StatusPolicyViolation, revokedReason)
		return false
	}
	c.self = c.grant.principal("")
	c.filtered = !c.self.IsOperator()
	c.s.recordTokenUse(c.ctx, c.grant, "ws", "connect "+c.remote)
	c.visible = map[string]bool{}

	// Subscribe before hello-ok so no event after it is missed.
	sub, stop := c.s.fan.subscribe(eventBuffer)
	c.sub = sub
	if err := c.respond(f.ID, c.s.hello(c)); err != nil {
		stop()
		return false
	}
	// From here on responses leave through the pump (replies.go).
	c.kick = make(chan struct{}, 1)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.pump(sub.ch, stop)
	}()
	return true
}

// hello is the hello-ok payload. Its session defaults are the
// connection's principal's (api.Service.Defaults): a session-bound token
// sees its own agent's main session.
func (s *Server) hello(c *conn) map[string]any {
	methods := make([]string, 0, len(s.methods))
	for name := range s.methods {
		methods = append(methods, name)
	}
	slices.Sort(methods)
	snapshot := map[string]any{
		"presence":     []any{},
		"health":       map[string]any{"ok": true},
		"stateVersion": map[string]any{"presence": 0, "health": 0},
		"uptimeMs":     s.now().Sub(s.started).Milliseconds(),
		"authMode":     s.authMode(),
	}
	if d, err := s.eng.Defaults(c.ctx, c.self); err == nil {
		snapshot["sessionDefaults"] = map[string]any{
			"defaultAgentId": d.DefaultAgentID,
			"mainKey":        d.MainKey,
			"mainSessionKey": d.MainSessionKey,
		}
	}
	return map[string]any{
		"type":     "hello-ok",
		"protocol": c.protocol,
		"server":   map[string]any{"version": s.opts.Version, "connId": c.id},
		"features": map[string]any{
			"methods": methods,
			"events":  []string{"connect.challenge", "tick", "agent", "chat", "sessions.changed", "session.message", "loops.paused", "session.approval", "shutdown"},
		},
		"snapshot": snapshot,
		"policy": map[string]any{
			"maxPayload":       s.opts.MaxPayload,
			"maxBufferedBytes": s.opts.MaxBufferedBytes,
			"tickIntervalMs":   s.opts.TickInterval.Milliseconds(),
		},
		"auth": map[string]any{"role": "operator", "scopes": c.grant.scopes},
	}
}
