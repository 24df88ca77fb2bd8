package engine

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

// BenchmarkListMessageLimit5Over10kJSON is BenchmarkListMessageLimit5Over10k
// with the tool result encoded as every surface does (the MCP text content:
// indented JSON), so the CPU a client waits for is counted whole.
func BenchmarkListMessageLimit5Over10kJSON(b *testing.B) {
	h := benchHarness(b, nil, agentVisibility)
	seedSessions(b, h, 10_000, 8)
	ctx := context.Background()
	var lat latencies
	cpu := startCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		out := h.e.callTool(ctx, Requester{}, api.ToolSessionsList, []byte(`{"limit":200,"messageLimit":5}`))
		if out.IsError || out.Payload.(ListResult).Count != 200 {
			b.Fatalf("list: %s", out.JSON())
		}
		if len(out.JSON()) < 200*5*20 {
			b.Fatal("short result")
		}
		lat.add(time.Since(start))
	}
	cpu.report(b)
	lat.report(b)
}
