package gateway_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// TestBufferedBytesBudget: a connection cannot make the gateway hold more
// than maxBufferedBytes of requests it has read but not answered. Large
// frames sent while slow runs hold earlier ones are refused with a
// retryable UNAVAILABLE instead of buffered; once the held requests are
// answered, the budget is free again.
func TestBufferedBytesBudget(t *testing.T) {
	const (
		budget = 256 << 10
		frames = 10
	)
	e := newEnv(t, envOptions{rules: []config.ScriptRule{slowRule(30_000)}, opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{MaxPayload: 128 << 10, MaxBufferedBytes: budget}
	}})
	w, hello := e.connect(t, nil)
	if got := hello["policy"].(map[string]any)["maxBufferedBytes"]; got != float64(budget) {
		t.Fatalf("hello-ok policy.maxBufferedBytes = %v, want %d", got, budget)
	}
	pad := strings.Repeat("x", 60_000) // one frame ≈ 60 KB: 4 fit the budget
	ids := make([]string, frames)
	for i := range frames {
		ids[i] = w.send("agent", map[string]any{"message": fmt.Sprintf("slow %d %s", i, pad), "sessionKey": fmt.Sprintf("agent:main:big-%d", i),
			"idempotencyKey": fmt.Sprintf("big-%d", i)})
	}
	var accepted, refused []string
	runs := map[string]string{} // request id → run id
	for _, id := range ids {
		f := w.response(id)
		switch {
		case f.OK:
			var acc struct{ RunID, Status string }
			f.decode(t, &acc)
			if acc.Status != "accepted" {
				t.Fatalf("first answer of %s: %s", id, f)
			}
			accepted = append(accepted, id)
			runs[id] = acc.RunID
		case f.Error != nil && f.Error.Code == "UNAVAILABLE" && strings.Contains(f.Error.Message, "maxBufferedBytes"):
			if !f.Error.Retryable {
				t.Fatalf("over-budget refusal is not retryable: %s", f)
			}
			refused = append(refused, id)
		default:
			t.Fatalf("answer of %s: %s", id, f)
		}
	}
	if len(accepted) != 4 || len(refused) != frames-4 {
		t.Fatalf("accepted %d, refused %d frames; want 4 and %d", len(accepted), len(refused), frames-4)
	}
	// A small request still fits next to the held ones.
	w.ok("agents.list", map[string]any{}, nil)

	// The refusal is retryable on the wire.
	id := w.send("agent", map[string]any{"message": "slow again " + pad, "idempotencyKey": "big-retry"})
	raw := w.response(id)
	if raw.OK || raw.Error.Code != "UNAVAILABLE" {
		t.Fatalf("over budget: %s", raw)
	}
	// Answer the held requests (cancel their runs): the budget is free.
	for _, id := range accepted {
		w.ok("runs.cancel", map[string]any{"runId": runs[id]}, nil)
		w.response(id) // the final answer
	}
	id = w.send("agent", map[string]any{"message": "hello " + pad, "sessionKey": "agent:main:after", "idempotencyKey": "big-after"})
	if f := w.response(id); !f.OK {
		t.Fatalf("after the budget was freed: %s", f)
	}
}
