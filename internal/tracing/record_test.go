package tracing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// keeping is an exporter that keeps a copy of every span it is given
// (the Span itself is reused after the export).
type keeping struct {
	mu  sync.Mutex
	got []Span
}

func (k *keeping) ExportSpans(_ context.Context, spans []*Span) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range spans {
		c := *s
		c.attrs = slices.Clone(s.attrs)
		k.got = append(k.got, c)
	}
	return nil
}

func (k *keeping) Shutdown(context.Context) error { return nil }

// TestSpanRecordMatchesTheSDK: what a Span records of its start, its
// attributes (a key set twice, one without a key, more than the limit),
// a failure and an error at its end is what the SDK's span records of
// the same calls.
func TestSpanRecordMatchesTheSDK(t *testing.T) {
	pathErr := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}
	for _, tc := range []struct {
		name  string
		start []attribute.KeyValue
		sets  []attribute.KeyValue
		fail  string
		err   error
	}{
		{"plain", []attribute.KeyValue{attribute.String("a", "1")}, []attribute.KeyValue{attribute.Int64("n", 2)}, "", nil},
		{"a key set again keeps the last value", []attribute.KeyValue{attribute.String("a", "1"), attribute.String("a", "2")},
			[]attribute.KeyValue{attribute.Int64("n", 1), attribute.String("a", "3"), attribute.Int64("n", 4)}, "", nil},
		{"an attribute without a key is dropped", []attribute.KeyValue{attribute.String("", "x")}, []attribute.KeyValue{attribute.String("", "y")}, "", nil},
		{"past the limit", nil, many(attrLimit + 5), "", nil},
		{"failed", nil, nil, "tool returned an error", nil},
		{"ended with an error", nil, nil, "", errors.New("boom")},
		{"failed, then ended with an error", nil, nil, "first", pathErr},
		{"an error of a named type", nil, nil, "", fmt.Errorf("wrapped: %w", pathErr)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
			_, ref := tp.Tracer(tracerName).Start(context.Background(), "op", trace.WithAttributes(tc.start...))
			for _, kv := range tc.sets {
				ref.SetAttributes(kv)
			}
			if tc.fail != "" {
				ref.SetStatus(codes.Error, tc.fail)
			}
			if tc.err != nil {
				ref.RecordError(tc.err)
				ref.SetStatus(codes.Error, tc.err.Error())
			}
			ref.End()
			want := sr.Ended()[0]

			k := &keeping{}
			r := &recorder{sampler: newSampler(1, true), batcher: newBatcher(k, batchLimitsFrom(func(string) string { return "" }))}
			installed.Store(r)
			defer installed.Store(nil)
			_, s := begin(trace.SpanContext{}, "op", trace.SpanKindInternal, tc.start...)
			for _, kv := range tc.sets {
				s.set(kv)
			}
			if tc.fail != "" {
				s.Fail(tc.fail)
			}
			s.End(tc.err)
			if err := r.batcher.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			got := k.got[0]

			if g, w := attrMap(got.attrs), attrMap(want.Attributes()); !sameMap(g, w) {
				t.Errorf("attributes %v, the SDK's %v", g, w)
			}
			if got.dropped != want.DroppedAttributes() {
				t.Errorf("dropped %d attributes, the SDK %d", got.dropped, want.DroppedAttributes())
			}
			if got.status != want.Status().Code || got.statusMsg != want.Status().Description {
				t.Errorf("status %v %q, the SDK's %v %q", got.status, got.statusMsg, want.Status().Code, want.Status().Description)
			}
			var events []string
			if got.failure != nil {
				events = append(events, fmt.Sprint("exception ", got.failure.typ, " ", got.failure.message))
			}
			var wantEvents []string
			for _, e := range want.Events() {
				m := attrMap(e.Attributes)
				wantEvents = append(wantEvents, fmt.Sprint(e.Name, " ", m["exception.type"], " ", m["exception.message"]))
			}
			if !slices.Equal(events, wantEvents) {
				t.Errorf("events %q, the SDK's %q", events, wantEvents)
			}
		})
	}
}

func many(n int) []attribute.KeyValue {
	out := make([]attribute.KeyValue, n)
	for i := range out {
		out[i] = attribute.Int(fmt.Sprintf("k%03d", i), i)
	}
	return out
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestSecondEndIsIgnored: a span ended twice is exported once, so its
// record is kept for reuse once.
func TestSecondEndIsIgnored(t *testing.T) {
	k := &keeping{}
	r := &recorder{sampler: newSampler(1, true), batcher: newBatcher(k, batchLimitsFrom(func(string) string { return "" }))}
	installed.Store(r)
	defer installed.Store(nil)
	_, s := begin(trace.SpanContext{}, "op", trace.SpanKindInternal)
	s.End(nil)
	s.End(errors.New("late"))
	if err := r.batcher.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(k.got) != 1 || k.got[0].failure != nil {
		t.Fatalf("exported %d spans (want 1, as first ended): %+v", len(k.got), k.got)
	}
}
