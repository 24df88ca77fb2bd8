package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/growstack"
)

const (
	// writeTimeout bounds one frame write: a client that does not read for
	// this long is cut off rather than holding up its handlers.
	writeTimeout = 10 * time.Second
	// maxInFlight bounds concurrent requests of one connection.
	maxInFlight = 1024
	// eventBuffer is the event queue of one connection (subscriptions.go:
	// half of it for streamed deltas, the rest for the events that must
	// arrive; a connection that overflows it is disconnected).
	eventBuffer = 1024
	// fanoutBuffer is the fan-out's own subscription to the engine's
	// events. One goroutine maps and encodes every event, so a burst
	// (thousands of runs streaming at once) queues here; the engine drops
	// what does not fit, for every client, so it is deep.
	fanoutBuffer = 16384
)

// conn is one WebSocket client. It owns its goroutines: the read loop runs
// on the HTTP handler's goroutine; request handlers, the event pump and
// the ticker are counted in wg and end with ctx.
type conn struct {
	s  *Server
	ws *websocket.Conn
	// sock is ws's socket; the event pump corks it to send a batch of
	// events in one write.
	sock   *corkConn
	id     string
	remote string
	// requestID is the X-Request-Id of the upgrade request (logs).
	requestID string
	// traceparent is the W3C trace context of the upgrade request: the
	// parent of the connection's requests that carry none of their own.
	traceparent string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}

	// Set by the handshake, read-only afterwards.
	protocol int
	// grant is the credential's grant narrowed to the scopes the client
	// asked for; every call's principal is built from it. self is its
	// principal acting as itself, built once (every request needs it).
	grant grant
	self  api.Principal
	// held is what the handshake admitted (nil before it); a config
	// reload reads it from another goroutine (revokeStale).
	held atomic.Pointer[heldCred]
	// filtered is set for a non-operator principal (a token bound to a
	// session): it gets only events of sessions it may see. visible caches
	// that answer per session key; only the event pump touches it.
	filtered bool
	visible  map[string]bool
	// sub is the connection's place in the event fan-out (its
	// subscriptions); set by the handshake.
	sub *subscriber

	// ended holds the runs this connection's `agent` calls saw end
	// (agent.wait answers from it).
	ended endedRuns

	// replies are encoded responses waiting for the pump (replies.go);
	// kick tells the pump there are some. kick is nil until the pump runs.
	replyMu    sync.Mutex
	replies    [][]byte
	replyBytes int64
	kick       chan struct{}

	writeMu sync.Mutex // guards writes, seq and scratch
	seq     int64
	// scratch is where the pump frames an event (eventLocked), lent by
	// the server's pool for one batch.
	scratch []byte

	// buffered counts request bytes read but not yet answered; it stays
	// within the server's MaxBufferedBytes (the hello-ok policy).
	bufMu    sync.Mutex
	buffered int64
}

// reserve counts n request bytes against the connection's budget, or
// reports that they do not fit.
func (c *conn) reserve(n int64) bool {
	c.bufMu.Lock()
	defer c.bufMu.Unlock()
	if c.buffered+n > c.s.opts.MaxBufferedBytes {
		return false
	}
	c.buffered += n
	return true
}

// release returns n bytes to the budget once their request is answered.
func (c *conn) release(n int64) {
	c.bufMu.Lock()
	defer c.bufMu.Unlock()
	c.buffered -= n
}

// overBudget is the answer to a request that does not fit the budget.
func (c *conn) overBudget(n int64) error {
	c.bufMu.Lock()
	held := c.buffered
	c.bufMu.Unlock()
	return domain.Errorf(domain.CodeUnavailable, "too many request bytes in flight on this connection "+
		"(%d held + %d in this frame > maxBufferedBytes %d): retry once earlier requests are answered", held, n, c.s.opts.MaxBufferedBytes)
}

// serveWS upgrades a request to the gateway protocol and runs the
// connection until it ends.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if s.isClosing() {
		writeError(w, domain.Errorf(domain.CodeUnavailable, "gateway is shutting down"))
		return
	}
	// The browser policy (outerware) has checked Origin and Host already,
	// allowed origins included; Accept's own same-origin check would
	// refuse those.
	cw := &corkingWriter{ResponseWriter: w, pool: &s.bufs}
	ws, err := websocket.Accept(cw, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		s.log.Debug("websocket accept failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	ctx, cancel := context.WithCancel(s.base)
	c := &conn{s: s, ws: ws, sock: cw.conn, id: domain.NewID(), remote: r.RemoteAddr, requestID: requestIDOf(w), traceparent: r.Header.Get("traceparent"), ctx: ctx, cancel: cancel, sem: make(chan struct{}, maxInFlight)}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		cancel()
		_ = ws.Close(websocket.StatusGoingAway, "gateway shutting down")
		return
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	s.mu.Unlock()
	s.metrics.wsConnections.Inc()
	s.metrics.wsTotal.Inc()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.metrics.wsConnections.Dec()
		s.connWG.Done()
	}()
	c.run()
}

// run drives the connection: challenge, handshake, then the request loop.
func (c *conn) run() {
	defer func() {
		c.cancel()
		c.wg.Wait()
		_ = c.ws.CloseNow()
	}()
	c.ws.SetReadLimit(c.s.opts.PreauthPayload)
	nonce := domain.NewID()
	if err := c.write(eventFrame{Type: "event", Event: "connect.challenge",
		Payload: map[string]any{"nonce": nonce, "ts": c.s.now().UnixMilli()}}); err != nil {
		return
	}
	if !c.handshake() {
		return
	}
	c.ws.SetReadLimit(c.s.opts.MaxPayload)
	c.s.log.Debug("gateway client connected", "conn", c.id, "remote", c.remote, "protocol", c.protocol, "principal", c.grant.name, "scopes", c.grant.scopes)
	// The connection's end closes the socket, which ends the read below:
	// one hook for the connection rather than a context hook set up and
	// torn down by every read (a read with a cancellable context).
	stopClose := context.AfterFunc(c.ctx, func() { _ = c.ws.CloseNow() })
	defer stopClose()
	for {
		typ, data, err := c.ws.Read(context.Background())
		if err != nil {
			c.s.log.Debug("gateway client gone", "conn", c.id, "err", err)
			return
		}
		f, fault := readRequest(typ, data)
		if fault != nil {
			if !c.refuseFrame(f, fault) {
				return
			}
			continue
		}
		n := int64(len(data))
		if !c.reserve(n) {
			c.s.metrics.request(f.Method, CodeUnavailable)
			c.respondErr(f.ID, c.overBudget(n))
			continue
		}
		select {
		case c.sem <- struct{}{}:
		default:
			c.release(n)
			c.respondErr(f.ID, domain.Errorf(domain.CodeUnavailable, "too many requests in flight on this connection (max %d)", maxInFlight))
			continue
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer func() { <-c.sem }()
			defer c.release(n)
			growstack.Grow()
			c.dispatch(f)
		}()
	}
}

// write sends one frame. A failed write ends the connection.
func (c *conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.writeLocked(b)
}

// writeLocked writes one frame (writeMu held). The socket's write
// deadline (corkConn) bounds it, not a context: a context with a deadline
// costs a timer and a context.AfterFunc per frame.
func (c *conn) writeLocked(b []byte) error {
	if err := c.ws.Write(context.Background(), websocket.MessageText, b); err != nil {
		c.cancel()
		return err
	}
	return nil
}

// event sends a server event with the connection's next seq.
func (c *conn) event(name string, payload any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	seq := c.seq + 1
	b, err := json.Marshal(eventFrame{Type: "event", Event: name, Payload: payload, Seq: &seq})
	if err != nil {
		return err
	}
	c.seq = seq
	return c.writeLocked(b)
}

// respond sends a successful response.
func (c *conn) respond(id json.RawMessage, payload any) error {
	b, err := json.Marshal(resFrame{Type: "res", ID: id, OK: true, Payload: payload})
	if err != nil {
		return err
	}
	return c.queueReply(b)
}

// respondErr sends a failed response.
func (c *conn) respondErr(id json.RawMessage, err error) error {
	f := resFrame{Type: "res", ID: id, OK: false, Error: toWireError(err)}
	var pe *payloadError
	if errors.As(err, &pe) {
		f.Payload = pe.payload
	}
	b, merr := json.Marshal(f)
	if merr != nil {
		return merr
	}
	return c.queueReply(b)
}

// close ends the connection with a close frame.
func (c *conn) close(code websocket.StatusCode, reason string) {
	_ = c.ws.Close(code, reason)
	c.cancel()
}

// shutdown tells the client the gateway is stopping and closes.
func (c *conn) shutdown(reason string) {
	_ = c.event("shutdown", map[string]any{"reason": reason, "ts": c.s.now().UnixMilli()})
	c.close(websocket.StatusGoingAway, reason)
}

// pump forwards engine events, and the keepalive `tick` events, to the
// client until the connection ends.
func (c *conn) pump(events <-chan wireEvent, stop func()) {
	defer stop()
	// Ticks come from this goroutine too: a goroutine fewer per
	// connection is a stack fewer, which a gateway of idle connections
	// holds thousands of.
	t := time.NewTicker(c.s.opts.TickInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case ev := <-events:
			runtime.Gosched()
			if err := c.eventBatch(&ev, events); err != nil {
				return
			}
		case <-c.kick:
			runtime.Gosched()
			if err := c.eventBatch(nil, events); err != nil {
				return
			}
		case <-c.sub.slow:
			c.s.log.Info("gateway client too slow: disconnected", "conn", c.id, "remote", c.remote, "queued", eventBuffer)
			c.close(websocket.StatusPolicyViolation, "slow consumer: event queue full")
			return
		case <-t.C:
			if err := c.event("tick", map[string]any{"ts": c.s.now().UnixMilli()}); err != nil {
				return
			}
		}
	}
}

// maxVisibleCache bounds a connection's cache of visibility answers; past
// it the cache starts over.
const maxVisibleCache = 4096

// admit reports whether the connection may receive ev: operators get
// every event (encoded once for all); a non-operator gets the events of
// sessions it may see (engine.Visible, the gate's rule), cached per
// session key and checked again when the session changes.
func (c *conn) admit(ev wireEvent) bool {
	if !c.filtered {
		return true
	}
	if ev.sessionKey == "" {
		return false
	}
	ok, cached := c.visible[ev.sessionKey]
	if !cached || ev.changed {
		if len(c.visible) >= maxVisibleCache {
			clear(c.visible)
		}
		ok = c.s.eng.Visible(c.ctx, c.self, ev.sessionKey)
		c.visible[ev.sessionKey] = ok
	}
	return ok
}

// maxBatch is the most events the pump sends in one write.
const maxBatch = 64

// eventBatch sends the queued responses, first (if any) and the events
// queued behind it (up to maxBatch), and the responses queued meanwhile,
// in one socket write: the socket is corked while they are framed.
func (c *conn) eventBatch(first *wireEvent, events <-chan wireEvent) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.sock.cork()
	err := c.writeRepliesLocked()
	if err == nil && first != nil {
		err = c.eventLocked(*first)
	}
	for n := 1; err == nil && n < maxBatch; n++ {
		select {
		case ev := <-events:
			err = c.eventLocked(ev)
			continue
		default:
		}
		break
	}
	if err == nil {
		err = c.writeRepliesLocked()
	}
	if ferr := c.sock.uncork(); err == nil && ferr != nil {
		c.cancel()
		err = ferr
	}
	if c.scratch != nil {
		c.s.bufs.put(c.scratch)
		c.scratch = nil
	}
	return err
}

// eventLocked sends a pre-encoded event, if the connection may have it,
// with the connection's next seq (writeMu held).
func (c *conn) eventLocked(ev wireEvent) error {
	if !c.admit(ev) {
		return nil
	}
	c.seq++
	// The frame is built in the connection's scratch buffer: the write
	// has copied it out when it returns.
	if c.scratch == nil {
		c.scratch = c.s.bufs.get()
	}
	c.scratch = ev.appendFrame(c.scratch[:0], c.seq)
	return c.writeLocked(c.scratch)
}
