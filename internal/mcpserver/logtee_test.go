package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
)

func TestLogNotifications(t *testing.T) {
	e := newEngine(t, "tree")
	tee := NewLogTee()
	var stderr lockedBuilder
	log := slog.New(tee.Handler(slog.NewTextHandler(&stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	got := make(chan *mcp.LoggingMessageParams, 16)
	opts := &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params }}
	s := New(e, Options{Logger: log, Logs: tee})
	cs := connectStdioWith(t, s, operatorAs("main"), opts, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if cs.InitializeResult().Capabilities.Logging == nil {
		t.Fatal("stdio does not advertise logging")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// Nothing is sent before the client sets a level.
	log.Warn("before any level")
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	log.Info("below the level")
	log.With("component", "test").Warn("at the level", "key", "value")
	select {
	case p := <-got:
		b, _ := json.Marshal(p.Data)
		if p.Level != "warning" || !strings.Contains(string(b), "at the level") || !strings.Contains(string(b), `"component":"test"`) {
			t.Fatalf("log notification %s %s", p.Level, b)
		}
	case <-ctx.Done():
		t.Fatal("no notifications/message after logging/setLevel")
	}
	// The process's own handler still gets every record at its level.
	if out := stderr.String(); !strings.Contains(out, "before any level") || !strings.Contains(out, "below the level") {
		t.Errorf("stderr lost records: %s", out)
	}

	// Stateless HTTP has no session to send later lines on: no logging
	// capability there.
	ts := serveHTTP(t, New(e, Options{Logger: log, Logs: tee}), map[string]api.Principal{"tok": api.Operator()})
	hc := connectHTTPWith(t, ts.URL+"/mcp", "tok", nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if hc.InitializeResult().Capabilities.Logging != nil {
		t.Error("stateless HTTP advertises logging")
	}
}

// lockedBuilder is a strings.Builder safe for the handlers' goroutines.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
