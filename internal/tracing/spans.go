package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is a started span; its methods do nothing on a nil Span, which is
// what every Start returns with tracing off.
type Span struct{ s trace.Span }

// End ends the span; err, when not nil, marks it failed.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.s.RecordError(err)
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
}

// Fail marks the span failed with msg, without ending it.
func (s *Span) Fail(msg string) {
	if s == nil {
		return
	}
	s.s.SetStatus(codes.Error, msg)
}

// SetString sets one string attribute.
func (s *Span) SetString(key, value string) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.String(key, value))
}

// SetInt sets one integer attribute.
func (s *Span) SetInt(key string, value int64) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.Int64(key, value))
}

// TraceID is the span's trace id ("" on a nil Span).
func (s *Span) TraceID() string {
	if s == nil {
		return ""
	}
	return s.s.SpanContext().TraceID().String()
}

func start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	ctx, sp := tracer().Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &Span{s: sp}
}

// RunInfo names a run for its span.
type RunInfo struct {
	ID, Kind, SessionKey, AgentID string
	Attempt                       int
	// TraceParent is the trace context kept in the run's spec: the run's
	// span is its child.
	TraceParent string
}

// StartRun starts the span of one run (an inbound turn, a send's run, a
// reply-back turn, an announce step, a sub-agent's run), GenAI's
// invoke_agent, under the trace context the run kept.
func StartRun(ctx context.Context, r RunInfo) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	if r.TraceParent != "" {
		ctx = Extract(ctx, r.TraceParent)
	}
	return start(ctx, "invoke_agent "+r.AgentID, trace.SpanKindInternal,
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.id", r.AgentID),
		attribute.String("switchboard.run.id", r.ID),
		attribute.String("switchboard.run.kind", r.Kind),
		attribute.String("switchboard.session.key", r.SessionKey),
		attribute.Int("switchboard.run.attempt", max(r.Attempt, 1)))
}

// StartModel starts the span of one model call (GenAI's chat operation).
func StartModel(ctx context.Context, modelRef, modelID string) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	return start(ctx, "chat "+modelID, trace.SpanKindClient,
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.request.model", modelID),
		attribute.String("switchboard.model.ref", modelRef))
}

// EndModel ends a model call's span with its token use and response.
func (s *Span) EndModel(inputTokens, outputTokens int64, responseModel, stopReason string, err error) {
	if s == nil {
		return
	}
	s.s.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", inputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", outputTokens))
	if responseModel != "" {
		s.s.SetAttributes(attribute.String("gen_ai.response.model", responseModel))
	}
	if stopReason != "" {
		s.s.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{stopReason}))
	}
	s.End(err)
}

// StartTool starts the span of one tool call (GenAI's execute_tool).
func StartTool(ctx context.Context, name, callID string) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	return start(ctx, "execute_tool "+name, trace.SpanKindInternal,
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", name),
		attribute.String("gen_ai.tool.call.id", callID))
}

// StartDelivery starts the span of one outbox or channel delivery, under
// the trace context of the run that caused it ("" for none).
func StartDelivery(ctx context.Context, traceparent, kind, channel, sessionKey string) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	if traceparent != "" {
		ctx = Extract(ctx, traceparent)
	}
	return start(ctx, "deliver "+kind, trace.SpanKindProducer,
		attribute.String("switchboard.delivery.kind", kind),
		attribute.String("switchboard.delivery.channel", channel),
		attribute.String("switchboard.session.key", sessionKey))
}

// StartServer starts the span of one inbound request (a gateway method,
// an HTTP or MCP call, an A2A call), under the caller's trace context
// already in ctx.
func StartServer(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	return start(ctx, name, trace.SpanKindServer, attrs...)
}

// StartClient starts the span of one outbound call (an A2A request).
func StartClient(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	return start(ctx, name, trace.SpanKindClient, attrs...)
}
