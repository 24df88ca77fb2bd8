package engine

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// BenchmarkChatTurnTraced is BenchmarkChatTurn with tracing on at ratio
// 1.0, every span exported (batched) to an OTLP/HTTP receiver on loopback.
func BenchmarkChatTurnTraced(b *testing.B) {
	rec := otlptest.Start()
	defer rec.Close()
	ratio := 1.0
	p, err := tracing.Setup(context.Background(), tracing.Config{Enabled: true, Endpoint: rec.URL(), SampleRatio: &ratio}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			b.Error(err)
		}
		if len(rec.Spans()) == 0 {
			b.Error("no span reached the receiver")
		}
	}()
	benchChatTurn(b, 1000)
}
