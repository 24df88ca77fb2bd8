package signal

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// typingCalls returns the sendTyping calls crabline took, in order.
func typingCalls(t *testing.T, c *crabline.Server) []map[string]any {
	var out []map[string]any
	for _, call := range c.Calls(t, func(c crabline.Call) bool { return c.Accepted && c.Path == "/api/v1/rpc" }) {
		if call.Body["method"] == "sendTyping" {
			p, _ := call.Body["params"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}

// The typing indicator shows in the chat while the run runs and is
// stopped when it ends.
func TestTypingWhileTheRunRuns(t *testing.T) {
	c := crabline.Start(t, "signal")
	const ada = "+15550001001"
	a, err := New(Options{Raw: map[string]any{"account": c.Account, "httpUrl": c.BaseURL,
		"dmPolicy": "allowlist", "allowFrom": []any{ada}}})
	if err != nil {
		t.Fatal(err)
	}
	sink := chantest.NewRunSink()
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	crabline.WaitFor(t, "the event stream", func() bool { return a.Status()[0].Connected })
	c.Inject(t, map[string]any{"sourceNumber": ada, "text": "think hard"})
	crabline.WaitFor(t, "the typing indicator", func() bool { return len(typingCalls(t, c)) > 0 })
	first := typingCalls(t, c)[0]
	if r, _ := first["recipient"].([]any); len(r) != 1 || r[0] != ada || first["stop"] != nil {
		t.Fatalf("first sendTyping = %v, want recipient [%s] without stop", first, ada)
	}
	close(sink.Ended)
	crabline.WaitFor(t, "the typing stop", func() bool {
		calls := typingCalls(t, c)
		return calls[len(calls)-1]["stop"] == true
	})
}
