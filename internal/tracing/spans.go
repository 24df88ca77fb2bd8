package tracing

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is a started span; its methods do nothing on a nil Span, which is
// what every Start returns with tracing off.
//
// Attributes are kept here and given to the SDK span in one call at End:
// the SDK copies each call's attributes into a slice it grows, so one
// call per span is one exact allocation instead of one per call.
type Span struct {
	s     trace.Span
	attrs []attribute.KeyValue
}

// spanAttrs is the room for attributes a Span has without growing: the
// most a run's span or a model call's span sets.
const spanAttrs = 9

// spans keeps ended Spans with their attribute buffers for the next
// start: every turn starts and ends several.
var spans = sync.Pool{New: func() any {
	s := &Span{}
	s.attrs = make([]attribute.KeyValue, 0, spanAttrs)
	return s
}}

// newSpan is a Span around sp, from the pool.
func newSpan(sp trace.Span) *Span {
	s := spans.Get().(*Span)
	s.s = sp
	return s
}

// End ends the span; err, when not nil, marks it failed. End is the
// span's last use: the Span is reused by a later start.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if len(s.attrs) > 0 {
		s.s.SetAttributes(s.attrs...)
	}
	if err != nil {
		s.s.RecordError(err)
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
	s.s = nil
	if cap(s.attrs) > spanAttrs {
		return // grown by an unusual span: not kept
	}
	clear(s.attrs)
	s.attrs = s.attrs[:0]
	spans.Put(s)
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
	s.attrs = append(s.attrs, attribute.String(key, value))
}

// SetInt sets one integer attribute.
func (s *Span) SetInt(key string, value int64) {
	if s == nil {
		return
	}
	s.attrs = append(s.attrs, attribute.Int64(key, value))
}

// TraceID is the span's trace id ("" on a nil Span).
func (s *Span) TraceID() string {
	if s == nil {
		return ""
	}
	return s.s.SpanContext().TraceID().String()
}

// kindOptions are the start options of each span kind, made once: an
// option built per span is an allocation per span.
var kindOptions = func() (o [trace.SpanKindConsumer + 1][]trace.SpanStartOption) {
	for k := range o {
		o[k] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKind(k))}
	}
	return o
}()

// start starts a span of kind with attrs.
func start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	ctx, sp := tracer().Start(ctx, name, kindOptions[kind]...)
	s := newSpan(sp)
	s.attrs = append(s.attrs, attrs...)
	return ctx, s
}

// RunInfo names a run for its span.
type RunInfo struct {
	ID, Kind, SessionKey, AgentID string
	Attempt                       int
	// TraceParent is the trace context kept in the run's spec: the run's
	// span is its child.
	TraceParent string
}

// Attributes every span of an operation carries with the same value.
var (
	opInvokeAgent = attribute.String("gen_ai.operation.name", "invoke_agent")
	opChat        = attribute.String("gen_ai.operation.name", "chat")
	opExecuteTool = attribute.String("gen_ai.operation.name", "execute_tool")
)

// Span names that repeat with the agent or the model they name.
var (
	invokeAgentNames = newMemo(func(agentID string) string { return "invoke_agent " + agentID })
	chatNames        = newMemo(func(modelID string) string { return "chat " + modelID })
	finishReasons    = newMemo(func(reason string) attribute.KeyValue {
		return attribute.StringSlice("gen_ai.response.finish_reasons", []string{reason})
	})
)

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
	return start(ctx, invokeAgentNames.get(r.AgentID), trace.SpanKindInternal,
		opInvokeAgent,
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
	return start(ctx, chatNames.get(modelID), trace.SpanKindClient,
		opChat,
		attribute.String("gen_ai.request.model", modelID),
		attribute.String("switchboard.model.ref", modelRef))
}

// EndModel ends a model call's span with its token use and response.
func (s *Span) EndModel(inputTokens, outputTokens int64, responseModel, stopReason string, err error) {
	if s == nil {
		return
	}
	s.attrs = append(s.attrs, attribute.Int64("gen_ai.usage.input_tokens", inputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", outputTokens))
	if responseModel != "" {
		s.attrs = append(s.attrs, attribute.String("gen_ai.response.model", responseModel))
	}
	if stopReason != "" {
		s.attrs = append(s.attrs, finishReasons.get(stopReason))
	}
	s.End(err)
}

// StartTool starts the span of one tool call (GenAI's execute_tool).
func StartTool(ctx context.Context, name, callID string) (context.Context, *Span) {
	if !Enabled() {
		return ctx, nil
	}
	return start(ctx, "execute_tool "+name, trace.SpanKindInternal,
		opExecuteTool,
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
