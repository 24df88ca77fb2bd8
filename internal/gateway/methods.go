package gateway

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// call is one request being handled.
type call struct {
	c      *conn
	id     json.RawMessage
	method string
	params json.RawMessage
}

// ack sends an intermediate response (the `accepted` answer of `agent`);
// the handler's return value becomes the final one.
func (cl *call) ack(payload any) error { return cl.c.respond(cl.id, payload) }

// method is a gateway method: the scope it needs and its handler.
type method struct {
	scope string
	fn    func(ctx context.Context, cl *call) (any, error)
}

// methodTable lists every method the gateway answers.
func (s *Server) methodTable() map[string]method {
	return map[string]method{
		"sessions.list":    {ScopeRead, s.mSessionsList},
		"sessions.resolve": {ScopeRead, s.mSessionsResolve},
		"sessions.patch":   {ScopeAdmin, s.mSessionsPatch},
		"sessions.reset":   {ScopeAdmin, s.mSessionsReset},
		"sessions.delete":  {ScopeAdmin, s.mSessionsDelete},
		"sessions.spawn":   {ScopeWrite, s.mSessionsSpawn},
		"chat.history":     {ScopeRead, s.mChatHistory},
		"chat.send":        {ScopeWrite, s.mChatSend},
		"chat.abort":       {ScopeWrite, s.mChatAbort},
		"agent":            {ScopeWrite, s.mAgent},
		"agent.wait":       {ScopeWrite, s.mAgentWait},
		"send":             {ScopeWrite, s.mSend},
		"agents.list":      {ScopeRead, s.mAgentsList},
		"runs.get":         {ScopeRead, s.mRunsGet},
		"runs.cancel":      {ScopeWrite, s.mRunsCancel},
		"tools.invoke":     {ScopeWrite, s.mToolsInvoke},
	}
}

// dispatch runs one request and answers it. When the connection is gone
// there is no one to answer.
func (c *conn) dispatch(f reqFrame) {
	s := c.s
	if f.Method == "connect" {
		_ = c.respondErr(f.ID, domain.Invalid("already connected: connect is only valid as the first request"))
		return
	}
	m, ok := s.methods[f.Method]
	if !ok {
		s.metrics.request(f.Method, CodeInvalidRequest)
		_ = c.respondErr(f.ID, domain.Invalid("unknown method: %s", f.Method))
		return
	}
	if !scopeSatisfied(c.scopes, m.scope) {
		s.metrics.request(f.Method, CodeInvalidRequest)
		_ = c.respondErr(f.ID, missingScope(m.scope))
		return
	}
	payload, err := m.fn(c.ctx, &call{c: c, id: f.ID, method: f.Method, params: f.Params})
	if c.ctx.Err() != nil {
		return
	}
	if err != nil {
		we := toWireError(err)
		s.metrics.request(f.Method, we.Code)
		if we.Code == CodeUnavailable {
			s.log.Warn("gateway method failed", "method", f.Method, "err", err)
		}
		_ = c.respondErr(f.ID, err)
		return
	}
	s.metrics.request(f.Method, "OK")
	_ = c.respond(f.ID, payload)
}
