package gateway_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// TestTraceparentAcceptedOnHTTPAndWS: a caller's W3C trace context on an
// HTTP request (header) and on a WebSocket request (the frame's member)
// is the trace of the run the request starts.
func TestTraceparentAcceptedOnHTTPAndWS(t *testing.T) {
	rec := otlptest.Start()
	defer rec.Close()
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	p, err := tracing.Setup(t.Context(), tracing.Config{Enabled: true, Endpoint: rec.URL()}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.Shutdown(ctx)
	}()
	e := newEnv(t, envOptions{token: "tok"})

	const httpTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	req, err := http.NewRequest(http.MethodPost, e.url+"/api/sessions/main/chat?wait=10s", strings.NewReader(`{"message":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+httpTrace+"-00f067aa0ba902b7-01")
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("chat status %d", resp.StatusCode)
	}
	var runs struct{ Runs []domain.Run }
	if st := e.do(t, http.MethodGet, "/api/runs?session=main", nil, &runs); st != http.StatusOK || len(runs.Runs) != 1 {
		t.Fatalf("runs: %d %+v", st, runs)
	}
	if got := runs.Runs[0].TraceID; got != httpTrace {
		t.Fatalf("run started over HTTP is in trace %q, want the caller's %s", got, httpTrace)
	}

	const wsTrace = "0af7651916cd43dd8448eb211c80319c"
	w, _ := e.connect(t, nil)
	w.write(map[string]any{"type": "req", "id": "traced", "method": "agent", "traceparent": "00-" + wsTrace + "-b7ad6b7169203331-01",
		"params": map[string]any{"message": "hello", "sessionKey": "agent:main:ws", "idempotencyKey": "traced-1"}})
	f := w.response("traced")
	var acc struct{ RunID string }
	f.decode(t, &acc)
	var run domain.Run
	if st := e.do(t, http.MethodGet, "/api/runs/"+acc.RunID+"?wait=10s", nil, &run); st != http.StatusOK {
		t.Fatalf("run get: %d", st)
	}
	if run.TraceID != wsTrace {
		t.Fatalf("run started over WS is in trace %q, want the frame's %s", run.TraceID, wsTrace)
	}
	// The gateway's own spans reach the collector in the caller's traces.
	ok := rec.WaitFor(t.Context(), 10*time.Second, func(spans []otlptest.Span) bool {
		seen := map[string]bool{}
		for _, s := range spans {
			if s.Attrs["gen_ai.operation.name"] == "invoke_agent" {
				seen[s.TraceID] = true
			}
		}
		return seen[httpTrace] && seen[wsTrace]
	})
	if !ok {
		_ = p.ForceFlush(t.Context())
		t.Fatalf("run spans in the callers' traces did not arrive; %d spans", len(rec.Spans()))
	}
}
