package gateway_test

import (
	"fmt"
	"testing"
)

// BenchmarkAgentRoundTrip measures `agent` (ack and final res) followed
// by `agent.wait` over a loopback WebSocket with the script model.
func BenchmarkAgentRoundTrip(b *testing.B) {
	e := newEnv(b, envOptions{})
	w, _ := e.connect(b, nil)
	for i := 0; b.Loop(); i++ {
		id := w.send("agent", map[string]any{"message": "bench", "idempotencyKey": fmt.Sprintf("b%d", i)})
		var acc struct{ RunID string }
		w.response(id).decode(b, &acc)
		if final := w.response(id); !final.OK {
			b.Fatalf("final = %s", final)
		}
		var wr waitResult
		w.ok("agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 0}, &wr)
		if wr.Status != "ok" {
			b.Fatalf("wait = %+v", wr)
		}
		// Events are not read here; drop them so memory stays flat.
		w.pending = w.pending[:0]
		for range drain(w.frames) {
		}
	}
}
