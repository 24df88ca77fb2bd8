package replicas

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// frame is any frame of the gateway protocol.
type frame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	OK      bool            `json:"ok"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
	Event   string          `json:"event,omitempty"`
}

// wsClient is a connected operator client; one goroutine reads.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn

	mu      sync.Mutex
	next    int
	pending map[string]chan frame
	events  []frame
	notify  chan struct{}
}

// dialWS connects to g's WebSocket and completes the handshake.
func dialWS(t *testing.T, g *gateway) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(g.base, "http")+"/", nil)
	if err != nil {
		t.Fatalf("dial %s: %v", g.name, err)
	}
	conn.SetReadLimit(64 << 20)
	var challenge frame
	if err := wsjson.Read(ctx, conn, &challenge); err != nil || challenge.Event != "connect.challenge" {
		t.Fatalf("connect.challenge from %s: %v %+v", g.name, err, challenge)
	}
	err = wsjson.Write(ctx, conn, map[string]any{"type": "req", "id": "connect", "method": "connect", "params": map[string]any{
		"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"client": map[string]any{"id": "replicas-test", "version": "1", "platform": "linux", "mode": "cli"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var hello frame
	if err := wsjson.Read(ctx, conn, &hello); err != nil || !hello.OK {
		t.Fatalf("hello from %s: %v %s %s", g.name, err, hello.Payload, hello.Error)
	}
	c := &wsClient{t: t, conn: conn, pending: map[string]chan frame{}, notify: make(chan struct{})}
	rctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.read(rctx) }()
	t.Cleanup(func() { stop(); conn.CloseNow(); <-done })
	return c
}

func (c *wsClient) read(ctx context.Context) {
	for {
		var f frame
		if err := wsjson.Read(ctx, c.conn, &f); err != nil {
			return
		}
		c.mu.Lock()
		switch f.Type {
		case "res":
			if ch, ok := c.pending[f.ID]; ok {
				select {
				case ch <- f:
				default:
				}
			}
		case "event":
			c.events = append(c.events, f)
			close(c.notify)
			c.notify = make(chan struct{})
		}
		c.mu.Unlock()
	}
}

// call sends a request and returns its (first) response's payload; an
// error response fails the test.
func (c *wsClient) call(method string, params any) map[string]any {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan frame, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := wsjson.Write(ctx, c.conn, map[string]any{"type": "req", "id": id, "method": method, "params": params}); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	select {
	case f := <-ch:
		if !f.OK {
			c.t.Fatalf("%s: %s", method, f.Error)
		}
		var out map[string]any
		_ = json.Unmarshal(f.Payload, &out)
		return out
	case <-ctx.Done():
		c.t.Fatalf("%s: no answer within 60s", method)
	}
	return nil
}

// waitEvent waits until an event named name whose payload satisfies match
// has arrived, and returns its payload.
func (c *wsClient) waitEvent(name string, match func(map[string]any) bool, within time.Duration) map[string]any {
	c.t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	seen := 0
	for {
		c.mu.Lock()
		evs, notify := c.events[seen:], c.notify
		seen = len(c.events)
		c.mu.Unlock()
		for _, f := range evs {
			if f.Event != name {
				continue
			}
			var p map[string]any
			if json.Unmarshal(f.Payload, &p) == nil && match(p) {
				return p
			}
		}
		select {
		case <-notify:
		case <-deadline.C:
			c.t.Fatalf("no %s event within %s", name, within)
			return nil
		}
	}
}
