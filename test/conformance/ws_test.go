package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// wsFrame is any frame of the gateway protocol.
type wsFrame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	OK      bool            `json:"ok"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Error   *struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details,omitempty"`
	} `json:"error,omitempty"`
	Event string `json:"event,omitempty"`
	// raw is the frame as it arrived.
	raw json.RawMessage
}

// wsClient is a connected, authenticated gateway client. One goroutine
// reads: responses go to their callers, events to the event log.
type wsClient struct {
	conn   *websocket.Conn
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	next    int
	pending map[string]chan wsFrame
	events  []wsFrame
	// notify is closed and replaced whenever an event arrives.
	notify chan struct{}
	err    error
}

// dialWS connects to the gateway and completes the handshake:
// connect.challenge, then connect with auth.token (no scopes: the token's
// whole grant), answered by hello-ok.
func dialWS(ctx context.Context, base, token string) (*wsClient, error) {
	url := "ws" + strings.TrimPrefix(base, "http") + "/"
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	conn.SetReadLimit(64 << 20)
	var challenge wsFrame
	if err := readFrame(ctx, conn, &challenge); err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("read connect.challenge: %w", err)
	}
	wire.event(challenge.raw)
	if challenge.Event != "connect.challenge" {
		conn.CloseNow()
		return nil, fmt.Errorf("first frame is %q, want the connect.challenge event", challenge.Event)
	}
	connect := map[string]any{"type": "req", "id": "connect", "method": "connect", "params": map[string]any{
		"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"client": map[string]any{"id": "test", "version": "1", "platform": "linux", "mode": "test"},
		"auth":   map[string]any{"token": token},
	}}
	if err := wsjson.Write(ctx, conn, connect); err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("write connect: %w", err)
	}
	var hello wsFrame
	if err := readFrame(ctx, conn, &hello); err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("read hello-ok: %w", err)
	}
	wire.request("connect", connect["params"], hello.raw)
	if !hello.OK || !bytes.Contains(hello.Payload, []byte(`"hello-ok"`)) {
		conn.CloseNow()
		return nil, fmt.Errorf("connect refused: %s %+v", hello.Payload, hello.Error)
	}
	rctx, cancel := context.WithCancel(context.Background())
	c := &wsClient{conn: conn, cancel: cancel, done: make(chan struct{}), pending: map[string]chan wsFrame{}, notify: make(chan struct{})}
	go c.read(rctx)
	return c, nil
}

// read delivers frames until the connection ends.
func (c *wsClient) read(ctx context.Context) {
	defer close(c.done)
	for {
		var f wsFrame
		err := readFrame(ctx, c.conn, &f)
		c.mu.Lock()
		if err != nil {
			c.err = err
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			close(c.notify)
			c.notify = make(chan struct{})
			c.mu.Unlock()
			return
		}
		switch f.Type {
		case "res":
			if ch, ok := c.pending[f.ID]; ok {
				// `agent` answers twice; callers take the first.
				select {
				case ch <- f:
				default:
				}
			}
		case "event":
			wire.event(f.raw)
			c.events = append(c.events, f)
			close(c.notify)
			c.notify = make(chan struct{})
		}
		c.mu.Unlock()
	}
}

// call sends a request and waits for its (first) response.
func (c *wsClient) call(ctx context.Context, method string, params any) (wsFrame, error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return wsFrame{}, c.err
	}
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan wsFrame, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if params == nil {
		params = map[string]any{}
	}
	params = withIdempotencyKey(method, id, params)
	if err := wsjson.Write(ctx, c.conn, map[string]any{"type": "req", "id": id, "method": method, "params": params}); err != nil {
		return wsFrame{}, fmt.Errorf("write %s: %w", method, err)
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return wsFrame{}, errors.New("connection closed before the response")
		}
		wire.request(method, params, f.raw)
		return f, nil
	case <-ctx.Done():
		return wsFrame{}, fmt.Errorf("%s: no response: %w", method, ctx.Err())
	}
}

// waitEvent waits until an event matching match has arrived (including
// events that arrived before the call).
func (c *wsClient) waitEvent(ctx context.Context, match func(wsFrame) bool) (wsFrame, error) {
	for {
		c.mu.Lock()
		for _, e := range c.events {
			if match(e) {
				c.mu.Unlock()
				return e, nil
			}
		}
		notify, err := c.notify, c.err
		c.mu.Unlock()
		if err != nil {
			return wsFrame{}, fmt.Errorf("connection ended: %w", err)
		}
		select {
		case <-notify:
		case <-ctx.Done():
			return wsFrame{}, ctx.Err()
		}
	}
}

// eventsMatching returns the events received so far that match.
func (c *wsClient) eventsMatching(match func(wsFrame) bool) []wsFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []wsFrame
	for _, e := range c.events {
		if match(e) {
			out = append(out, e)
		}
	}
	return out
}

// close ends the connection and waits for the reader.
func (c *wsClient) close() {
	c.conn.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	<-c.done
}

// idemSeq numbers the idempotency keys withIdempotencyKey makes.
var idemSeq atomic.Int64

// withIdempotencyKey gives agent, chat.send and send a fresh
// idempotencyKey when params name none: OpenClaw's schema requires one
// (its clients always send it), and a row about something else should not
// trip over that.
func withIdempotencyKey(method, id string, params any) any {
	p, ok := params.(map[string]any)
	if !ok || (method != "agent" && method != "chat.send" && method != "send") {
		return params
	}
	if _, has := p["idempotencyKey"]; has {
		return params
	}
	q := make(map[string]any, len(p)+1)
	for k, v := range p {
		q[k] = v
	}
	q["idempotencyKey"] = fmt.Sprintf("conformance-%d-%s", idemSeq.Add(1), id)
	return q
}

// readFrame reads one JSON frame into f, keeping its bytes.
func readFrame(ctx context.Context, conn *websocket.Conn, f *wsFrame) error {
	_, data, err := conn.Read(ctx)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, f); err != nil {
		return fmt.Errorf("frame %.200s: %w", data, err)
	}
	f.raw = data
	return nil
}

// eventSession returns the sessionKey an event payload names.
func eventSession(e wsFrame) string {
	var p struct {
		SessionKey string `json:"sessionKey"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	return p.SessionKey
}

// lockedBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
