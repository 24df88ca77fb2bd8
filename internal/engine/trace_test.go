package engine

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// exchangeRules: main asks research; research answers; main replies
// (reply-back turn 1, on the requester); research ends the exchange
// (turn 2, on the target); research's announce step speaks.
func exchangeRules() []config.ScriptRule {
	return []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^ask research (.*)$"}, "sessions_send",
			map[string]any{"sessionKey": research, "message": "$1"}),
		rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent reply step:"}, "REPLY_SKIP"),
		rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent announce step:"}, "announcing: done"),
		rule(config.ScriptWhen{Session: "research$"}, "research answer"),
		rule(config.ScriptWhen{Session: ":main:main$", System: "Agent-to-agent reply step:"}, "thanks, research"),
	}
}

// runExchange drives one sessions_send exchange to its announce and
// returns every run it made.
func runExchange(t *testing.T, h *harness) []domain.Run {
	t.Helper()
	r := h.chat("main", "ask research what is up")
	if r.Status != domain.RunOK {
		t.Fatalf("main run = %s %s", r.Status, r.Error)
	}
	h.waitFor("announce step ended", func() bool {
		runs := runsOf(h, research, domain.RunKindAnnounce)
		return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
	})
	var all []domain.Run
	for _, key := range []string{"agent:main:main", research} {
		runs, err := h.st.ListRuns(t.Context(), domain.RunQuery{SessionKey: key})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, runs...)
	}
	return all
}

func TestTraceCoversSendExchangeAcrossSessions(t *testing.T) {
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
	h := newHarness(t, exchangeRules(), func(c *config.Config) {
		agentVisibility(c)
		c.Tracing.LinkTemplate = "http://viewer.test/trace/{traceId}"
	})
	runs := runExchange(t, h)
	kinds := map[domain.RunKind]int{}
	traceID := ""
	for _, r := range runs {
		kinds[r.Kind]++
		id := tracing.TraceIDOfSpec(r.Spec)
		if id == "" {
			t.Fatalf("run %s (%s) keeps no trace context", r.ID, r.Kind)
		}
		if traceID == "" {
			traceID = id
		}
		if id != traceID {
			t.Fatalf("run %s (%s) is in trace %s, want %s", r.ID, r.Kind, id, traceID)
		}
	}
	if kinds[domain.RunKindSend] != 1 || kinds[domain.RunKindReply] != 2 || kinds[domain.RunKindAnnounce] != 1 {
		t.Fatalf("runs by kind = %v, want one send, two reply-back turns, one announce", kinds)
	}
	// The API shows each run's trace id and its viewer link.
	listed, err := h.e.ListRuns(t.Context(), api.Operator(), api.RunsRequest{SessionKey: research})
	if err != nil || len(listed) == 0 {
		t.Fatalf("list runs = %d, %v", len(listed), err)
	}
	for _, r := range listed {
		if r.TraceID != traceID || r.TraceURL != "http://viewer.test/trace/"+traceID {
			t.Fatalf("listed run %s shows trace %q %q, want %s", r.ID, r.TraceID, r.TraceURL, traceID)
		}
	}
	// Every run's span arrives in that one trace, with its model calls.
	ok := rec.WaitFor(t.Context(), 10*time.Second, func(spans []otlptest.Span) bool {
		seen := map[string]bool{}
		for _, s := range spans {
			if s.TraceID == traceID && s.Attrs["gen_ai.operation.name"] == "invoke_agent" {
				seen[s.Attrs["switchboard.run.id"].(string)] = true
			}
		}
		for _, r := range runs {
			if !seen[r.ID] {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("the receiver did not get a span for every run in trace %s; got %d spans", traceID, len(rec.Spans()))
	}
	var inTrace []otlptest.Span
	for _, s := range rec.Spans() {
		if s.TraceID == traceID {
			inTrace = append(inTrace, s)
		}
	}
	byID := map[string]otlptest.Span{}
	for _, s := range inTrace {
		byID[s.SpanID] = s
	}
	roots, sessions, models, sendTools := 0, map[string]bool{}, 0, 0
	for _, s := range inTrace {
		if s.ParentID == "" {
			roots++
		} else if _, ok := byID[s.ParentID]; !ok {
			t.Errorf("span %q has parent %s, which is not in the trace", s.Name, s.ParentID)
		}
		if k, ok := s.Attrs["switchboard.session.key"].(string); ok {
			sessions[k] = true
		}
		switch s.Attrs["gen_ai.operation.name"] {
		case "chat":
			models++
			if s.Attrs["gen_ai.request.model"] == "" || s.Attrs["gen_ai.usage.input_tokens"] == nil || s.Attrs["gen_ai.usage.output_tokens"] == nil {
				t.Errorf("model span lacks the GenAI attributes: %v", s.Attrs)
			}
		case "execute_tool":
			if s.Attrs["gen_ai.tool.name"] == "sessions_send" {
				sendTools++
			}
		}
	}
	if roots != 1 {
		t.Errorf("trace has %d roots, want 1", roots)
	}
	if !sessions["agent:main:main"] || !sessions[research] {
		t.Errorf("trace covers sessions %v, want both", sessions)
	}
	if models < len(runs) || sendTools != 1 {
		t.Errorf("model spans = %d (runs %d), sessions_send tool spans = %d", models, len(runs), sendTools)
	}
}

func TestTracingOffExportsNothing(t *testing.T) {
	rec := otlptest.Start()
	defer rec.Close()
	p, err := tracing.Setup(t.Context(), tracing.Config{Enabled: false, Endpoint: rec.URL()}, os.Getenv)
	if err != nil || p != nil || tracing.Enabled() {
		t.Fatalf("setup with tracing off = %v, %v (enabled %v): want nothing", p, err, tracing.Enabled())
	}
	h := newHarness(t, exchangeRules(), agentVisibility)
	for _, r := range runExchange(t, h) {
		if id := tracing.TraceIDOfSpec(r.Spec); id != "" {
			t.Fatalf("run %s keeps trace %s with tracing off", r.ID, id)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rec.Posts(); n != 0 {
		t.Fatalf("receiver got %d exports with tracing off", n)
	}
}

// TestTraceCoversSpawnTree: parent → child → grandchild, and the
// announces back up, are one trace.
func TestTraceCoversSpawnTree(t *testing.T) {
	rec := otlptest.Start()
	defer rec.Close()
	p, err := tracing.Setup(t.Context(), tracing.Config{Enabled: true, Endpoint: rec.URL()}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.Shutdown(ctx)
	}()
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^delegate$"}, "sessions_spawn", map[string]any{"task": "child task"}),
		toolCall(config.ScriptWhen{Session: ":subagent:", Role: "user", Message: "^child task$"}, "sessions_spawn", map[string]any{"task": "grandchild task"}),
	}, func(c *config.Config) { c.Agents.Defaults.Subagents.MaxSpawnDepth = 2 })
	root := h.chat("main", "delegate")
	want := tracing.TraceIDOfSpec(root.Spec)
	if want == "" {
		t.Fatal("the root run keeps no trace context")
	}
	var subs []domain.Run
	h.waitFor("grandchild ran", func() bool {
		runs, err := h.st.ListRuns(t.Context(), domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindSubagent}})
		if err != nil {
			t.Fatal(err)
		}
		subs = runs
		return len(runs) == 2 && domain.RunTerminal(runs[0].Status) && domain.RunTerminal(runs[1].Status)
	})
	for _, r := range subs {
		if got := tracing.TraceIDOfSpec(r.Spec); got != want {
			t.Fatalf("sub-agent run %s (%s) is in trace %q, want the root's %s", r.ID, r.SessionKey, got, want)
		}
	}
	h.waitFor("announces ran", func() bool {
		runs, _ := h.st.ListRuns(t.Context(), domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindInbound}})
		return len(runs) == 2
	})
	inbound, _ := h.st.ListRuns(t.Context(), domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindInbound}})
	for _, r := range inbound {
		if got := tracing.TraceIDOfSpec(r.Spec); got != want {
			t.Fatalf("announce run %s into %s is in trace %q, want %s", r.ID, r.SessionKey, got, want)
		}
	}
}
