package engine

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
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

// BenchmarkChatTurnTracedPaired runs BenchmarkChatTurn's turns on one
// harness in blocks of tracedBlock, tracing off and on (ratio 1.0, as
// BenchmarkChatTurnTraced) in the order off, on, on, off, and so on, and
// reports each half's p50 and CPU per turn and their ratios. On a shared
// machine, load that comes and goes falls on both halves alike, where two
// benchmark runs one after the other each get their own; the order
// cancels a drift as the store grows. Every session has had a turn
// before the first timed one. A block is long enough for batches to be
// exported inside it; what is still queued at its end is exported
// between blocks, untimed.
func BenchmarkChatTurnTracedPaired(b *testing.B) { benchTracedPaired(b, 1) }

func benchTracedPaired(b *testing.B, ratio float64) {
	rec := otlptest.StartDiscard()
	defer rec.Close()
	h := benchHarness(b, nil, nil)
	ctx := context.Background()
	var p *tracing.Provider
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Shutdown(sctx); err != nil {
			b.Fatal(err)
		}
		p = nil
	}
	turn := func(i int) {
		res, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "agent:main:c" + strconv.Itoa(i%1000), Message: "hi"})
		if err != nil {
			b.Fatal(err)
		}
		if r, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil || r.Status != domain.RunOK {
			b.Fatalf("run %v %v", r.Status, err)
		}
	}
	if b.N >= 2*tracedBlock {
		for i := range 1000 {
			turn(i)
		}
	}
	traced := func(i int) bool { k := i / tracedBlock % 4; return k == 1 || k == 2 }
	var lat [2]latencies
	var cpu [2]time.Duration
	var turns [2]int
	b.ResetTimer()
	blockStart := processCPU(b)
	for i := 0; i < b.N; i++ {
		on := traced(i)
		if i%tracedBlock == 0 {
			b.StopTimer()
			if i > 0 {
				cpu[b2i(traced(i-1))] += processCPU(b) - blockStart
				if p != nil {
					stop()
				}
			}
			if on {
				var err error
				if p, err = tracing.Setup(ctx, tracing.Config{Enabled: true, Endpoint: rec.URL(), SampleRatio: &ratio}, nil); err != nil {
					b.Fatal(err)
				}
			}
			blockStart = processCPU(b)
			b.StartTimer()
		}
		start := time.Now()
		turn(i)
		lat[b2i(on)].add(time.Since(start))
		turns[b2i(on)]++
	}
	b.StopTimer()
	cpu[b2i(traced(b.N-1))] += processCPU(b) - blockStart
	if p != nil {
		stop()
	}
	if turns[1] == 0 {
		// The testing package's first, single-turn run, or a -benchtime
		// too short for a traced block.
		b.Logf("no traced turn: run at least %dx", 2*tracedBlock)
		return
	}
	if ratio > 0 && rec.Posts() == 0 {
		b.Fatal("no export reached the receiver")
	}
	p50 := [2]float64{lat[0].p50(), lat[1].p50()}
	perTurn := [2]float64{cpu[0].Seconds() * 1000 / float64(turns[0]), cpu[1].Seconds() * 1000 / float64(turns[1])}
	b.ReportMetric(p50[0], "p50-off-ms")
	b.ReportMetric(p50[1], "p50-on-ms")
	b.ReportMetric(p50[1]/p50[0], "p50-on/off")
	b.ReportMetric(perTurn[1]/perTurn[0], "cpu-on/off")
}

// tracedBlock is how many turns BenchmarkChatTurnTracedPaired runs with
// tracing off, then on: three batches of a turn's spans at the default
// batch size.
const tracedBlock = 500

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
