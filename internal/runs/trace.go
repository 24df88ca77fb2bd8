package runs

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// traceRun starts r's span under the trace context its spec keeps; the
// returned function ends it with the run's end as recorded here (nil
// when the run did not end here: re-queued, or taken by another replica).
func traceRun(ctx context.Context, r domain.Run) (context.Context, func(ended *domain.Run)) {
	if !tracing.Enabled() {
		return ctx, func(*domain.Run) {}
	}
	ctx, span := tracing.StartRun(ctx, tracing.RunInfo{ID: r.ID, Kind: string(r.Kind), SessionKey: r.SessionKey,
		AgentID: r.AgentID, Attempt: r.Attempt, TraceParent: tracing.FromSpec(r.Spec)})
	return ctx, func(ended *domain.Run) {
		if ended == nil {
			span.End(nil)
			return
		}
		span.SetString("switchboard.run.status", string(ended.Status))
		span.SetInt("gen_ai.usage.input_tokens", ended.Usage.Input)
		span.SetInt("gen_ai.usage.output_tokens", ended.Usage.Output)
		if ended.Status != domain.RunOK {
			span.Fail(ended.Error)
		}
		span.End(nil)
	}
}

// completeTraced is provider.Complete inside a model-call span.
func completeTraced(ctx context.Context, provider domain.Provider, req domain.ModelRequest, modelRef string) (domain.ModelResponse, error) {
	if !tracing.Enabled() {
		return provider.Complete(ctx, req)
	}
	ctx, span := tracing.StartModel(ctx, modelRef, req.Model)
	span.SetString("gen_ai.provider.name", provider.Name())
	resp, err := provider.Complete(ctx, req)
	var in, out int64
	if u := resp.Message.Usage; u != nil {
		in, out = u.Input, u.Output
	}
	spanErr := err
	if err == nil && resp.Message.StopReason == domain.StopReasonError {
		spanErr = errors.New(resp.Message.ErrorMessage)
	}
	span.EndModel(in, out, resp.Message.Model, resp.Message.StopReason, spanErr)
	return resp, err
}

// callToolTraced is the hooks' CallTool inside a tool-call span: the runs
// a tool starts (a send's target run, a spawned child) keep this span as
// their parent.
func (rt *Runtime) callToolTraced(ctx context.Context, tc domain.ToolCallContext, call domain.Block) domain.ToolResult {
	if !tracing.Enabled() {
		return rt.opts.Hooks.CallTool(ctx, tc, call.Name, call.Arguments)
	}
	ctx, span := tracing.StartTool(ctx, call.Name, call.ID)
	res := rt.opts.Hooks.CallTool(ctx, tc, call.Name, call.Arguments)
	if res.IsError {
		span.Fail("tool returned an error")
	}
	span.End(nil)
	return res
}
