package discord

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// fakeGateway is a scripted Discord gateway: each accepted connection
// runs the next script with the connection's path and the client's
// identify or resume payload.
type fakeGateway struct {
	t       *testing.T
	mu      sync.Mutex
	scripts []func(ctx context.Context, c *websocket.Conn, path string, op int, d json.RawMessage)
	paths   []string
	srv     *httptest.Server
}

func newFakeGateway(t *testing.T, scripts ...func(ctx context.Context, c *websocket.Conn, path string, op int, d json.RawMessage)) *fakeGateway {
	g := &fakeGateway{t: t, scripts: scripts}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeGateway) url(path string) string {
	return "ws" + strings.TrimPrefix(g.srv.URL, "http") + path
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("v") != "10" || r.URL.Query().Get("encoding") != "json" {
		http.Error(w, "want v=10&encoding=json", http.StatusBadRequest)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	g.mu.Lock()
	g.paths = append(g.paths, r.URL.Path)
	if len(g.scripts) == 0 {
		g.mu.Unlock()
		return
	}
	script := g.scripts[0]
	g.scripts = g.scripts[1:]
	g.mu.Unlock()
	ctx := r.Context()
	send(ctx, c, `{"op":10,"d":{"heartbeat_interval":45000}}`)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var f frame
		_ = json.Unmarshal(b, &f)
		if f.Op == opHeartbeat {
			send(ctx, c, `{"op":11}`)
			continue
		}
		script(ctx, c, r.URL.Path, f.Op, f.D)
		return
	}
}

func send(ctx context.Context, c *websocket.Conn, s string) {
	_ = c.Write(ctx, websocket.MessageText, []byte(s))
}

func waitClosed(ctx context.Context, c *websocket.Conn) {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

const testMessage = `{"id":"135000000000000100","channel_id":"135000000000000010","guild_id":"135000000000000011","author":{"id":"135000000000000200","username":"ada"},"content":"hi","mentions":[]}`

func TestGatewayIdentifyResumeAfterCut(t *testing.T) {
	var identify, resume json.RawMessage
	var fg *fakeGateway
	fg = newFakeGateway(t,
		func(ctx context.Context, c *websocket.Conn, _ string, op int, d json.RawMessage) {
			if op != opIdentify {
				t.Errorf("first op = %d, want identify", op)
				return
			}
			identify = d
			send(ctx, c, `{"op":0,"t":"READY","s":1,"d":{"session_id":"s1","resume_gateway_url":"`+fg.url("/resume")+`","user":{"id":"135000000000000001","username":"bot"}}}`)
			send(ctx, c, `{"op":0,"t":"MESSAGE_CREATE","s":2,"d":`+testMessage+`}`)
			// Cut the connection without a close frame.
		},
		func(ctx context.Context, c *websocket.Conn, path string, op int, d json.RawMessage) {
			if op != opResume || path != "/resume" {
				t.Errorf("after a cut: op %d at %s, want resume at /resume", op, path)
				return
			}
			resume = d
			send(ctx, c, `{"op":0,"t":"RESUMED","s":3,"d":{}}`)
			send(ctx, c, `{"op":0,"t":"MESSAGE_CREATE","s":4,"d":`+strings.Replace(testMessage, "0100", "0101", 1)+`}`)
			waitClosed(ctx, c)
		},
	)
	got := make(chan string, 8)
	gw, err := NewGateway(GatewayConfig{URL: fg.url("/gateway"), Token: "tok", Intents: 1 << 9,
		Backoff: func(int) time.Duration { return time.Millisecond },
		Dispatch: func(ctx context.Context, event string, d json.RawMessage) {
			if event == "MESSAGE_CREATE" {
				m, err := decodeMessage(d)
				if err != nil {
					t.Error(err)
				}
				got <- m.ID
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Run(ctx) }()
	deadline := time.After(10 * time.Second)
	for _, want := range []string{"135000000000000100", "135000000000000101"} {
		select {
		case id := <-got:
			if id != want {
				t.Fatalf("dispatch %s, want %s", id, want)
			}
		case <-deadline:
			t.Fatalf("no dispatch %s", want)
		}
	}
	st := gw.Status()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
	}
	_ = json.Unmarshal(identify, &id)
	if id.Token != "tok" || id.Intents != 1<<9 {
		t.Errorf("identify = %s", identify)
	}
	var rs struct {
		Session string `json:"session_id"`
		Seq     int    `json:"seq"`
	}
	_ = json.Unmarshal(resume, &rs)
	if rs.Session != "s1" || rs.Seq != 2 {
		t.Errorf("resume = %s, want session s1 at seq 2", resume)
	}
	if st.State != StateReady || st.Resumes != 1 || st.BotUserID != "135000000000000001" {
		t.Errorf("status = %+v", st)
	}
}

func TestGatewayRefusedTokenIsFatal(t *testing.T) {
	fg := newFakeGateway(t, func(ctx context.Context, c *websocket.Conn, _ string, _ int, _ json.RawMessage) {
		_ = c.Close(4004, "Authentication failed")
	})
	gw, _ := NewGateway(GatewayConfig{URL: fg.url("/gateway"), Token: "bad",
		Backoff:  func(int) time.Duration { return time.Millisecond },
		Dispatch: func(context.Context, string, json.RawMessage) {}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := gw.Run(ctx)
	var fatal *FatalError
	if !errors.As(err, &fatal) || fatal.Code != 4004 {
		t.Fatalf("Run = %v, want a fatal 4004", err)
	}
	if st := gw.Status(); st.State != StateFailed || !strings.Contains(st.LastError, "authentication failed") {
		t.Errorf("status = %+v", st)
	}
}

func TestGatewayInvalidSessionIdentifiesAgain(t *testing.T) {
	ops := make(chan int, 4)
	var fg *fakeGateway
	fg = newFakeGateway(t,
		func(ctx context.Context, c *websocket.Conn, _ string, op int, _ json.RawMessage) {
			ops <- op
			send(ctx, c, `{"op":0,"t":"READY","s":1,"d":{"session_id":"s1","resume_gateway_url":"`+fg.url("/resume")+`","user":{"id":"1"}}}`)
			send(ctx, c, `{"op":7,"d":null}`) // reconnect: resume
			waitClosed(ctx, c)
		},
		func(ctx context.Context, c *websocket.Conn, _ string, op int, _ json.RawMessage) {
			ops <- op
			send(ctx, c, `{"op":9,"d":false}`) // cannot resume: identify
			waitClosed(ctx, c)
		},
		func(ctx context.Context, c *websocket.Conn, path string, op int, _ json.RawMessage) {
			if path != "/gateway" {
				t.Errorf("identify again at %s, want the configured URL", path)
			}
			ops <- op
			waitClosed(ctx, c)
		},
	)
	gw, _ := NewGateway(GatewayConfig{URL: fg.url("/gateway"), Token: "tok",
		Backoff:  func(int) time.Duration { return time.Millisecond },
		Dispatch: func(context.Context, string, json.RawMessage) {}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Run(ctx) }()
	var got []int
	for range 3 {
		select {
		case op := <-ops:
			got = append(got, op)
		case <-time.After(10 * time.Second):
			t.Fatalf("ops so far %v", got)
		}
	}
	cancel()
	<-done
	if want := []int{opIdentify, opResume, opIdentify}; !equalInts(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
