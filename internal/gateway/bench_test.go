package gateway_test

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// BenchmarkAgentRoundTrip measures `agent` (ack and final res) followed
// by `agent.wait` over a loopback WebSocket with the script model.
func BenchmarkAgentRoundTrip(b *testing.B) {
	e := newEnv(b, envOptions{})
	w, _ := e.connect(b, nil)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
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
		lat = append(lat, time.Since(start))
		// Events are not read here; drop them so memory stays flat.
		w.pending = w.pending[:0]
		for range drain(w.frames) {
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}
