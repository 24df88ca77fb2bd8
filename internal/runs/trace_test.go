package runs

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// toolOnceModel calls the tool "noop" once, then answers with the tokens
// it was asked to report.
type toolOnceModel struct{}

func (toolOnceModel) Name() string                   { return "once" }
func (toolOnceModel) ThinkingLevels(string) []string { return []string{"off"} }
func (toolOnceModel) Complete(_ context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	if req.Messages[len(req.Messages)-1].Role == domain.RoleToolResult {
		return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.TextContent("done"),
			Usage: &domain.Usage{Input: 7, Output: 3, TotalTokens: 10}}}, nil
	}
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant,
		Content: domain.BlockContent(domain.Block{Type: domain.BlockToolCall, ID: "call-1", Name: "noop", Arguments: json.RawMessage(`{}`)})}}, nil
}

type toolOnceModels struct{}

func (toolOnceModels) Resolve(string) (domain.Provider, string, error) {
	return toolOnceModel{}, "once", nil
}

// With tracing on, a run is one span with its model calls and tool calls
// under it, carrying the GenAI attributes: the operation, the model, the
// tool and the tokens.
func TestRunSpans(t *testing.T) {
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
	e := newEnv(t, func(o *Options) { o.Models = toolOnceModels{} })
	r := e.wait(e.submit("agent:main:traced", "go", nil).ID)
	if r.Status != domain.RunOK {
		t.Fatalf("run = %s %q", r.Status, r.Error)
	}
	op := func(s otlptest.Span) string { v, _ := s.Attrs["gen_ai.operation.name"].(string); return v }
	var spans []otlptest.Span
	ok := rec.WaitFor(t.Context(), 10*time.Second, func(got []otlptest.Span) bool {
		spans = got
		n := map[string]int{}
		for _, s := range got {
			n[op(s)]++
		}
		return n["invoke_agent"] == 1 && n["chat"] == 2 && n["execute_tool"] == 1
	})
	if !ok {
		t.Fatalf("spans = %+v, want one run, two model calls and one tool call", spans)
	}
	var run otlptest.Span
	for _, s := range spans {
		if op(s) == "invoke_agent" {
			run = s
		}
	}
	for _, s := range spans {
		if s.TraceID != run.TraceID {
			t.Errorf("span %q is in trace %s, want the run's %s", s.Name, s.TraceID, run.TraceID)
		}
		switch op(s) {
		case "chat":
			if s.ParentID != run.SpanID || s.Attrs["gen_ai.request.model"] == nil {
				t.Errorf("model span = %+v, want under the run with the requested model", s)
			}
		case "execute_tool":
			if s.ParentID != run.SpanID || s.Attrs["gen_ai.tool.name"] != "noop" || s.Attrs["gen_ai.tool.call.id"] != "call-1" {
				t.Errorf("tool span = %+v, want noop call-1 under the run", s)
			}
		}
	}
	if run.Attrs["switchboard.run.status"] != "ok" || run.Attrs["gen_ai.usage.output_tokens"] != int64(3) {
		t.Errorf("run span attributes = %v, want status ok and 3 output tokens", run.Attrs)
	}
}
