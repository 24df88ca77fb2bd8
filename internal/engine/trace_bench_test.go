package engine

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// BenchmarkChatTurnTraced is BenchmarkChatTurn with tracing on at ratio
// 1.0, every span exported (batched) over OTLP/HTTP to a receiver on
// loopback that counts and discards: a real collector decodes in its own
// process, not on the cores the gateway's turns run on.
func BenchmarkChatTurnTraced(b *testing.B) {
	rec := otlptest.StartDiscard()
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
		if rec.Posts() == 0 || rec.Bytes() == 0 {
			b.Error("no export reached the receiver")
		}
	}()
	benchChatTurn(b, 1000)
}
