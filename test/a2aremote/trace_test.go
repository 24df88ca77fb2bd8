package a2aremote

import (
	"context"
	"fmt"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// withTracing adds tracing to a gateway config, exporting to endpoint.
func withTracing(config, endpoint string) string {
	return strings.Replace(config, "{", fmt.Sprintf("{\n  tracing: { enabled: true, endpoint: %q },", endpoint), 1)
}

// TestTraceAcrossTwoGateways: a send from one gateway to an agent of
// another over A2A is one trace — the receiving gateway's spans are
// children of the sender's outbound A2A call (W3C traceparent on the
// wire), and both export to the same collector.
func TestTraceAcrossTwoGateways(t *testing.T) {
	rec := otlptest.Start()
	defer rec.Close()
	dirA, dirB := t.TempDir(), t.TempDir()
	portA, portB := testkit.FreePort(t), testkit.FreePort(t)
	const tokA, tokB = "token-of-a", "token-of-b"
	startGateway(t, dirB, fmt.Sprintf("127.0.0.1:%d", portB),
		withTracing(gatewayConfig("beta", "alpha-gw", "alpha", portA, "A_TOKEN"), rec.URL()), tokB, "A_TOKEN="+tokA)
	startGateway(t, dirA, fmt.Sprintf("127.0.0.1:%d", portA),
		withTracing(gatewayConfig("alpha", "beta-gw", "beta", portB, "B_TOKEN"), rec.URL()), tokA, "B_TOKEN="+tokB)

	out := cli(t, dirA, tokA, "send", "agent:beta-gw:main", "traced hello")
	if out["status"] != "ok" || out["reply"] != "echo: traced hello" {
		t.Fatalf("send to the remote = %v", out)
	}
	// A's outbound call, and a span of B's parented to it: one trace.
	var call, remote otlptest.Span
	found := rec.WaitFor(context.Background(), 60*time.Second, func(spans []otlptest.Span) bool {
		for _, c := range spans {
			if !strings.HasPrefix(c.Name, "a2a SendStreamingMessage") && !strings.HasPrefix(c.Name, "a2a SendMessage") {
				continue
			}
			for _, s := range spans {
				if s.TraceID == c.TraceID && s.ParentID == c.SpanID {
					call, remote = c, s
					return true
				}
			}
		}
		return false
	})
	if !found {
		var names []string
		for _, s := range rec.Spans() {
			names = append(names, fmt.Sprintf("%s (trace %s, parent %s)", s.Name, s.TraceID, s.ParentID))
		}
		t.Fatalf("no span of the receiving gateway under the sender's A2A call; spans: %s", strings.Join(names, "; "))
	}
	// The trace holds the receiving run as well as the sender's.
	var inTrace []string
	for _, s := range rec.Spans() {
		if s.TraceID == call.TraceID {
			inTrace = append(inTrace, s.Name)
		}
	}
	t.Logf("trace %s: %s", call.TraceID, strings.Join(inTrace, ", "))
	joined := "|" + strings.Join(inTrace, "|") + "|"
	for _, want := range []string{"|invoke_agent beta-gw|", "|POST /a2a/agents/beta|", "|invoke_agent beta|"} {
		if !strings.Contains(joined, want) {
			t.Errorf("trace %s lacks the span %s: %v", call.TraceID, strings.Trim(want, "|"), inTrace)
		}
	}
	if remote.Name != "POST /a2a/agents/beta" {
		t.Errorf("the span under the sender's call is %q, want the receiving gateway's POST /a2a/agents/beta", remote.Name)
	}
}
