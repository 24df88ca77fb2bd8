package tracing

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func TestSpecTraceParent(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	quoted, _ := json.Marshal(`"traceparent":"` + other + `"}`)
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"last member", `{"userMessage":{"text":"hi"},"traceparent":"` + tp + `"}`, tp},
		{"only member", `{"traceparent":"` + tp + `"}`, tp},
		{"not last", `{"traceparent":"` + tp + `","model":"x"}`, tp},
		{"nested only", `{"deliver":{"traceparent":"` + other + `"},"model":"x"}`, ""},
		{"nested and top", `{"deliver":{"traceparent":"` + other + `"},"traceparent":"` + tp + `"}`, tp},
		{"in a message", `{"userMessage":{"text":` + string(quoted) + `}}`, ""},
		{"longer version", `{"traceparent":"01-` + tp[3:] + `-extra"}`, "01-" + tp[3:] + "-extra"},
		{"none", `{"model":"x"}`, ""},
		{"empty", ``, ""},
		{"not JSON", `"traceparent":"` + tp + `"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := specTraceParent([]byte(tc.spec)); got != tc.want {
				t.Errorf("specTraceParent(%s) = %q, want %q", tc.spec, got, tc.want)
			}
		})
	}
}

// TestInjectExtract: a traceparent extracted as a remote parent is
// injected back unchanged, its tracestate kept; bad or empty input
// leaves ctx without a span.
func TestInjectExtract(t *testing.T) {
	on.Store(true)
	defer on.Store(false)
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := ExtractState(context.Background(), tp, "vendor=1")
	if got := Inject(ctx); got != tp {
		t.Errorf("Inject(Extract(%s)) = %q", tp, got)
	}
	var c w3c
	propagator.Inject(ctx, &c)
	if c.state != "vendor=1" {
		t.Errorf("tracestate = %q, want vendor=1", c.state)
	}
	for _, bad := range []string{"", "00-zz", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"} {
		if got := Inject(Extract(context.Background(), bad)); got != "" {
			t.Errorf("Inject(Extract(%q)) = %q, want none", bad, got)
		}
	}
}

// TestParseTraceParent: the fast reading of a traceparent agrees with the
// W3C propagator on valid and invalid input alike.
func TestParseTraceParent(t *testing.T) {
	for _, tp := range []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-04",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	} {
		want := trace.SpanContextFromContext(propagator.Extract(context.Background(), &w3c{parent: tp}))
		got, ok := parseTraceParent(tp)
		if tp[:3] != "00-" {
			if ok {
				t.Errorf("parseTraceParent(%s) read a version it should leave to the propagator", tp)
			}
			continue
		}
		if ok != want.IsValid() || (ok && !got.Equal(want)) {
			t.Errorf("parseTraceParent(%s) = %v %v, propagator %v", tp, got, ok, want)
		}
		if ok && traceParent(got) != traceParentOf(want) {
			t.Errorf("traceParent(%s) = %s, propagator %s", tp, traceParent(got), traceParentOf(want))
		}
	}
}

func traceParentOf(sc trace.SpanContext) string {
	var c w3c
	propagator.Inject(trace.ContextWithSpanContext(context.Background(), sc), &c)
	return c.parent
}
