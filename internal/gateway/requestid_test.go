package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// brokenEngine fails ListSessions with an internal error (a store that
// went bad).
type brokenEngine struct{ *engine.Engine }

var errDiskImage = errors.New("database disk image is malformed")

func (brokenEngine) ListSessions(context.Context, api.Principal, api.ListRequest) (api.ListResult, error) {
	return api.ListResult{}, errDiskImage
}

// logBuffer collects JSON log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the log records with msg.
func (b *logBuffer) lines(msg string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(b.buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestRequestIDAndFailureLog: every answer carries X-Request-Id (a sane
// client-sent one is echoed); a 5xx is logged with its cause and that id,
// and the error body names it too.
func TestRequestIDAndFailureLog(t *testing.T) {
	logs := &logBuffer{}
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) {
		o.Engine = brokenEngine{o.Engine.(*engine.Engine)}
		o.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}})

	st, hdr, body := e.rawDo(t, "GET", "/api/sessions", "", nil)
	if st != 500 {
		t.Fatalf("status %d %s", st, body)
	}
	id := hdr.Get("X-Request-Id")
	var eb struct {
		Error struct{ Code, Message, RequestID string }
	}
	if err := json.Unmarshal([]byte(body), &eb); err != nil || id == "" || eb.Error.RequestID != id {
		t.Fatalf("header %q, body %s (%v)", id, body, err)
	}
	if strings.Contains(eb.Error.Message, "malformed") {
		t.Errorf("the internal cause leaked to the client: %s", body)
	}
	// The line is written when the handler returns, before the small
	// answer is flushed; allow for it anyway.
	var found bool
	deadline := time.Now().Add(5 * time.Second)
	for len(logs.lines("request failed")) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for _, l := range logs.lines("request failed") {
		if l["requestId"] == id {
			found = true
			if l["status"] != float64(500) || !strings.Contains(l["err"].(string), "database disk image is malformed") || l["path"] != "/api/sessions" {
				t.Errorf("log line %v", l)
			}
		}
	}
	if !found {
		t.Fatalf("no failure log line with request id %s in %v", id, logs.lines("request failed"))
	}

	// A client's own id is echoed; an unsafe one is replaced.
	cases := []struct{ sent, want string }{
		{"trace-42:abc/1", "trace-42:abc/1"},
		{"bad id\twith spaces", ""},
		{strings.Repeat("x", 200), ""},
	}
	for _, c := range cases {
		st, hdr, _ := e.rawDo(t, "GET", "/healthz", "", map[string]string{"X-Request-Id": c.sent})
		got := hdr.Get("X-Request-Id")
		if st != 200 || got == "" || (c.want != "" && got != c.want) || (c.want == "" && got == c.sent) {
			t.Errorf("sent %q: status %d, X-Request-Id %q", c.sent, st, got)
		}
	}
	// Every route answers with one, the WebSocket upgrade included.
	for _, p := range []string{"/", "/metrics", "/api/nope", "/mcp"} {
		if _, hdr, _ := e.rawDo(t, "GET", p, "", nil); hdr.Get("X-Request-Id") == "" {
			t.Errorf("GET %s has no X-Request-Id", p)
		}
	}
	req, _ := http.NewRequest("GET", e.url+"/", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("upgrade: %s %v", resp.Status, resp.Header)
	}
}
