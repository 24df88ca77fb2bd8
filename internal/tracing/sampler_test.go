package tracing

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestSamplerDecidesAsTheSDK: for roots and for sampled and unsampled,
// local and remote parents, every sampler the config or the variables
// name keeps exactly the spans the SDK's sampler of the same name keeps.
func TestSamplerDecidesAsTheSDK(t *testing.T) {
	ratio := func(r float64) *float64 { return &r }
	for _, tc := range []struct {
		name  string
		ratio *float64
		env   map[string]string
		sdk   sdktrace.Sampler
	}{
		{"sampleRatio 1", ratio(1), nil, sdktrace.ParentBased(sdktrace.TraceIDRatioBased(1))},
		{"sampleRatio 0.25", ratio(0.25), nil, sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.25))},
		{"sampleRatio 0", ratio(0), nil, sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0))},
		{"sampleRatio over the variables", ratio(0.5), map[string]string{"OTEL_TRACES_SAMPLER": "always_off"},
			sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.5))},
		{"no variables", nil, nil, sdktrace.ParentBased(sdktrace.AlwaysSample())},
		{"always_on", nil, map[string]string{"OTEL_TRACES_SAMPLER": "always_on"}, sdktrace.AlwaysSample()},
		{"always_off", nil, map[string]string{"OTEL_TRACES_SAMPLER": "always_off"}, sdktrace.NeverSample()},
		{"traceidratio", nil, map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.3"},
			sdktrace.TraceIDRatioBased(0.3)},
		{"traceidratio without its argument", nil, map[string]string{"OTEL_TRACES_SAMPLER": "TraceIdRatio"}, sdktrace.TraceIDRatioBased(1)},
		{"parentbased_always_off", nil, map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_always_off"},
			sdktrace.ParentBased(sdktrace.NeverSample())},
		{"parentbased_traceidratio", nil, map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.7"},
			sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.7))},
		{"a ratio out of range is 1", nil, map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
			sdktrace.ParentBased(sdktrace.TraceIDRatioBased(1))},
		{"an unknown sampler is the default", nil, map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"},
			sdktrace.ParentBased(sdktrace.AlwaysSample())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := samplerFrom(tc.ratio, func(k string) string { return tc.env[k] })
			parents := []trace.SpanContext{{}}
			for _, flags := range []trace.TraceFlags{0, trace.FlagsSampled} {
				for _, remote := range []bool{false, true} {
					parents = append(parents, trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{9},
						TraceFlags: flags, Remote: remote}))
				}
			}
			kept := 0
			for i := range 2000 {
				tid := newTraceID()
				for _, p := range parents {
					if p.IsValid() {
						tid = p.TraceID()
					}
					want := tc.sdk.ShouldSample(sdktrace.SamplingParameters{ParentContext: trace.ContextWithSpanContext(context.Background(), p),
						TraceID: tid}).Decision == sdktrace.RecordAndSample
					if got := s.sampled(p, tid); got != want {
						t.Fatalf("trace %d, parent %v (sampled %v, remote %v): sampled %v, the SDK's %v", i, p.IsValid(), p.IsSampled(), p.IsRemote(), got, want)
					}
					if want && !p.IsValid() {
						kept++
					}
				}
			}
			t.Logf("%d of 2000 roots kept", kept)
		})
	}
}

// TestUnsampledSpansPropagate: a span not sampled is not recorded, but
// the work under it still gets a context of its own, flagged not
// sampled, and a caller's unsampled trace stays unsampled.
func TestUnsampledSpansPropagate(t *testing.T) {
	exp := newCountingExporter()
	r := &recorder{sampler: newSampler(0, true), batcher: newBatcher(exp, batchLimitsFrom(func(string) string { return "" }))}
	installed.Store(r)
	on.Store(true)
	defer func() {
		on.Store(false)
		installed.Store(nil)
		_ = r.batcher.Shutdown(context.Background())
	}()
	tp := Root(context.Background(), "chat")
	if tp == "" || tp[53:] != "00" {
		t.Fatalf("Root of an unsampled trace = %q, want a traceparent flagged 00", tp)
	}
	ctx, run := StartRun(context.Background(), RunInfo{ID: "r", AgentID: "main", TraceParent: tp})
	if run != nil {
		t.Fatal("a run under an unsampled trace was recorded")
	}
	child := Inject(ctx)
	if TraceID(child) != TraceID(tp) || child[36:52] == tp[36:52] || child[53:] != "00" {
		t.Fatalf("context under the unsampled run = %q, want trace %s with a span id of its own, flagged 00", child, TraceID(tp))
	}
	// A caller's sampled flag is followed whatever the ratio.
	sampledParent := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	_, run = StartRun(context.Background(), RunInfo{ID: "r", AgentID: "main", TraceParent: sampledParent})
	if run == nil || run.parent.SpanID().String() != "00f067aa0ba902b7" || !run.parent.IsRemote() {
		t.Fatalf("run under a sampled caller = %+v, want it recorded under the caller's span", run)
	}
	run.End(nil)
	if err := r.batcher.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := exp.count(); n != 1 {
		t.Fatalf("%d spans exported, want only the sampled run's", n)
	}
}
