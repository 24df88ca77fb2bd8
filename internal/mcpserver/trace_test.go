package mcpserver

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// TestStdioCallJoinsClientTrace drives switchboard over MCP stdio with a
// traceparent in a tools/call's _meta: the call's server span is the
// client span's child, and the send's target run joins the same trace.
// A call without one starts a trace of its own.
func TestStdioCallJoinsClientTrace(t *testing.T) {
	rec := otlptest.Start()
	defer rec.Close()
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "20")
	p, err := tracing.Setup(t.Context(), tracing.Config{Enabled: true, Endpoint: rec.URL()}, os.Getenv)
	if err != nil || p == nil {
		t.Fatalf("setup = %v, %v", p, err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	}()
	const (
		clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		clientSpan  = "00f067aa0ba902b7"
	)
	e := newEngine(t, "agent")
	cs := connectStdio(t, New(e, Options{}), operatorAs("main"))
	res, out := callMeta(t, cs, api.ToolSessionsSend,
		map[string]any{"sessionKey": "agent:main:bob", "message": "traced", "timeoutSeconds": 10},
		map[string]any{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01", "tracestate": "vendor=1"})
	if res.IsError || out["status"] != "ok" {
		t.Fatalf("send: isError=%v payload=%v, want ok", res.IsError, out)
	}
	if res, _ := call(t, cs, api.ToolSessionsList, map[string]any{}); res.IsError {
		t.Fatal("sessions_list failed")
	}

	var spans []otlptest.Span
	ok := rec.WaitFor(t.Context(), 10*time.Second, func(got []otlptest.Span) bool {
		spans = got
		var send, list, run bool
		for _, s := range got {
			switch {
			case s.Name == "tools/call sessions_send":
				send = true
			case s.Name == "tools/call sessions_list":
				list = true
			case s.Attrs["gen_ai.operation.name"] == "invoke_agent" && s.Attrs["switchboard.session.key"] == "agent:main:bob":
				run = true
			}
		}
		return send && list && run
	})
	if !ok {
		t.Fatalf("spans = %+v, want both tool calls and the target's run", spans)
	}
	for _, s := range spans {
		switch {
		case s.Name == "tools/call sessions_send":
			if s.TraceID != clientTrace || s.ParentID != clientSpan || s.Kind != 2 || s.Attrs["gen_ai.tool.name"] != "sessions_send" {
				t.Errorf("send call span = %+v, want a server span in trace %s under %s", s, clientTrace, clientSpan)
			}
		case s.Name == "tools/call sessions_list":
			if s.TraceID == clientTrace || s.ParentID != "" {
				t.Errorf("list call span = %+v, want a root span of its own trace (no _meta)", s)
			}
		case s.Attrs["switchboard.session.key"] == "agent:main:bob":
			if s.TraceID != clientTrace {
				t.Errorf("span %q of the target session is in trace %s, want the client's %s", s.Name, s.TraceID, clientTrace)
			}
		}
	}
}
