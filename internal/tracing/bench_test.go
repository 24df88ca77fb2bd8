//go:build unix

package tracing

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// BenchmarkTurnSpans is the tracing work of one chat turn alone, at ratio
// 1.0: the turn's root span and traceparent, the run's span started from
// the traceparent its stored spec keeps, one model call's span, the run's
// end, and the run shown with its trace id; every span exported (batched)
// to a receiver on loopback that counts and discards. Its CPU per op is
// what tracing adds to a turn, measured apart from the store and the
// scheduler that make a turn's wall time noisy on a shared machine.
func BenchmarkTurnSpans(b *testing.B) {
	rec := otlptest.StartDiscard()
	defer rec.Close()
	ratio := 1.0
	p, err := Setup(context.Background(), Config{Enabled: true, Endpoint: rec.URL(), SampleRatio: &ratio}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU(b)
	for range b.N {
		tp := Root(ctx, "chat")
		spec := []byte(`{"userMessage":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1733580000000},"traceparent":"` + tp + `"}`)
		rctx, run := StartRun(ctx, RunInfo{ID: "run_0123456789", Kind: "chat", SessionKey: "agent:main:c1", AgentID: "main",
			Attempt: 1, TraceParent: FromSpec(spec)})
		_, model := StartModel(rctx, "script", "script")
		model.SetString("gen_ai.provider.name", "script")
		model.EndModel(12, 3, "script", "stop", nil)
		run.SetString("switchboard.run.status", "ok")
		run.SetInt("gen_ai.usage.input_tokens", 12)
		run.SetInt("gen_ai.usage.output_tokens", 3)
		run.End(nil)
		if TraceIDOfSpec(spec) == "" {
			b.Fatal("no trace id in the spec")
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(sctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64((processCPU(b)-cpu).Nanoseconds())/1000/float64(b.N), "cpu-us/op")
	if rec.Posts() == 0 {
		b.Fatal("no export reached the receiver")
	}
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
