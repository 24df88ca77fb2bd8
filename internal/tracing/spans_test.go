package tracing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/tracing/otlptest"
)

// TestSpanAttributes: what a span is started with and what is set before
// its end are both exported, and a reused Span carries nothing of the
// span before it, even one that set more attributes than a Span holds.
func TestSpanAttributes(t *testing.T) {
	rec := otlptest.Start()
	defer rec.Close()
	ratio := 1.0
	p, err := Setup(context.Background(), Config{Enabled: true, Endpoint: rec.URL(), SampleRatio: &ratio}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, big := StartServer(ctx, "big")
	for i := range spanAttrs + 3 {
		big.SetInt("n"+string(rune('a'+i)), int64(i))
	}
	big.End(nil)
	_, model := StartModel(ctx, "ref", "m1")
	model.SetString("gen_ai.provider.name", "p")
	model.EndModel(12, 3, "m1-v", "stop", errors.New("boom"))
	_, tool := StartTool(ctx, "noop", "call-1")
	tool.End(nil)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]otlptest.Span{}
	for _, s := range rec.Spans() {
		got[s.Name] = s
	}
	if n := len(got["big"].Attrs); n != spanAttrs+3 {
		t.Errorf("big span has %d attributes, want %d", n, spanAttrs+3)
	}
	m := got["chat m1"]
	for k, want := range map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "m1", "switchboard.model.ref": "ref",
		"gen_ai.provider.name": "p", "gen_ai.usage.input_tokens": int64(12), "gen_ai.usage.output_tokens": int64(3),
		"gen_ai.response.model": "m1-v"} {
		if m.Attrs[k] != want {
			t.Errorf("model span %s = %v, want %v", k, m.Attrs[k], want)
		}
	}
	if len(m.Attrs) != 8 || !m.Error {
		t.Errorf("model span: %d attributes (want 8), failed %v: %v", len(m.Attrs), m.Error, m.Attrs)
	}
	if tl := got["execute_tool noop"]; len(tl.Attrs) != 3 || tl.Attrs["gen_ai.tool.call.id"] != "call-1" {
		t.Errorf("tool span attributes = %v, want its own three", tl.Attrs)
	}
}
