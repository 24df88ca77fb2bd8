package tracing

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// countingExporter records the spans it is given; hold, when set, blocks
// ExportSpans until it is closed.
type countingExporter struct {
	mu       sync.Mutex
	names    []string
	batches  int
	shutdown bool
	got      chan struct{} // a send per export
	hold     chan struct{}
	entered  chan struct{} // a send when an export starts to hold
}

func newCountingExporter() *countingExporter {
	return &countingExporter{got: make(chan struct{}, 1024)}
}

func (e *countingExporter) ExportSpans(ctx context.Context, spans []*Span) error {
	if e.hold != nil {
		e.entered <- struct{}{}
		select {
		case <-e.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.mu.Lock()
	for _, s := range spans {
		e.names = append(e.names, s.name)
	}
	e.batches++
	e.mu.Unlock()
	e.got <- struct{}{}
	return nil
}

func (e *countingExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.shutdown = true
	e.mu.Unlock()
	return nil
}

func (e *countingExporter) count() (spans, batches int, shut bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.names), e.batches, e.shutdown
}

// ended is n distinct ended spans: each is kept for reuse once
// exported, so none may be ended twice.
func ended(n int) []*Span {
	out := make([]*Span, n)
	for i := range out {
		sc := trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{byte(i + 1)}, TraceFlags: trace.FlagsSampled}
		out[i] = &Span{name: fmt.Sprintf("s%d", i), sc: trace.NewSpanContext(sc)}
	}
	return out
}

func TestBatcherFlushAndShutdownExportEverySpan(t *testing.T) {
	exp := newCountingExporter()
	b := newBatcher(exp, batchLimitsFrom(func(string) string { return "" }))
	for _, s := range ended(3) {
		b.OnEnd(s)
	}
	if err := b.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := exp.count(); n != 3 {
		t.Fatalf("after ForceFlush %d spans exported, want 3", n)
	}
	for _, s := range ended(4) {
		b.OnEnd(s)
	}
	if err := b.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _, shut := exp.count(); n != 7 || !shut {
		t.Fatalf("after Shutdown %d spans exported (want 7), exporter shut down: %v", n, shut)
	}
	b.OnEnd(ended(1)[0])
	if err := b.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := exp.count(); n != 7 {
		t.Fatalf("a span ended after Shutdown was exported: %d spans", n)
	}
}

func TestBatcherExportsAFullBatchWithoutWaiting(t *testing.T) {
	exp := newCountingExporter()
	b := newBatcher(exp, batchLimitsFrom(func(string) string { return "" }))
	defer func() { _ = b.Shutdown(context.Background()) }()
	for _, s := range ended(batchMax) {
		b.OnEnd(s)
	}
	select {
	case <-exp.got:
	case <-time.After(batchDelay / 2):
		t.Fatalf("a full batch of %d spans was not exported before the batch delay", batchMax)
	}
	if n, batches, _ := exp.count(); n != batchMax || batches != 1 {
		t.Fatalf("exported %d spans in %d batches, want %d in 1", n, batches, batchMax)
	}
}

func TestBatcherDropsPastTheQueueLimit(t *testing.T) {
	exp := newCountingExporter()
	exp.hold, exp.entered = make(chan struct{}), make(chan struct{}, 1024)
	b := newBatcher(exp, batchLimitsFrom(func(string) string { return "" }))
	// The first full batch is taken by the exporter, which holds it;
	// the queue then fills to its limit and the rest is dropped.
	for _, s := range ended(batchMax) {
		b.OnEnd(s)
	}
	select {
	case <-exp.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the exporter did not take the first batch")
	}
	for _, s := range ended(batchQueueMax + 10) {
		b.OnEnd(s)
	}
	b.mu.Lock()
	queued, dropped := len(b.queue), b.dropped
	b.mu.Unlock()
	if queued != batchQueueMax || dropped != 10 {
		t.Fatalf("queued %d, dropped %d; want %d and 10", queued, dropped, batchQueueMax)
	}
	close(exp.hold)
	if err := b.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := exp.count(); n != batchMax+batchQueueMax {
		t.Fatalf("exported %d spans, want %d", n, batchMax+batchQueueMax)
	}
}

func TestBatchLimitsFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want batchLimits
	}{
		{"defaults", nil, batchLimits{batchDelay, batchExportMax, batchMax, batchQueueMax}},
		{"every variable", map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "200", "OTEL_BSP_EXPORT_TIMEOUT": "1000",
			"OTEL_BSP_MAX_QUEUE_SIZE": "100", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "10"},
			batchLimits{200 * time.Millisecond, time.Second, 10, 100}},
		{"a batch larger than the queue is the queue", map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "100"},
			batchLimits{batchDelay, batchExportMax, 100, 100}},
		{"invalid values leave the defaults", map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "soon", "OTEL_BSP_MAX_QUEUE_SIZE": "-1"},
			batchLimits{batchDelay, batchExportMax, batchMax, batchQueueMax}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := batchLimitsFrom(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Fatalf("batchLimitsFrom = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestBatcherKeepsExportedSpansForReuse: exported spans are kept, empty,
// for the next starts, at most a batch of them.
func TestBatcherKeepsExportedSpansForReuse(t *testing.T) {
	exp := newCountingExporter()
	b := newBatcher(exp, batchLimitsFrom(func(k string) string {
		return map[string]string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4"}[k]
	}))
	defer func() { _ = b.Shutdown(context.Background()) }()
	spans := ended(10)
	spans[0].attrs = append(spans[0].attrs, attribute.String("k", "v"))
	for _, s := range spans {
		b.OnEnd(s)
	}
	if err := b.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	b.freeMu.Lock()
	kept := len(b.free)
	b.freeMu.Unlock()
	if kept != 4 {
		t.Fatalf("%d spans kept after export, want a batch: 4", kept)
	}
	seen := map[*Span]bool{}
	for _, s := range spans {
		seen[s] = true
	}
	for range kept {
		s := b.take()
		if !seen[s] || s.name != "" || len(s.attrs) != 0 || s.sc.IsValid() {
			t.Fatalf("take = %+v, want an exported span, emptied", s)
		}
	}
	if s := b.take(); seen[s] {
		t.Fatal("a span was handed out twice")
	}
}
