package tracing

import (
	"context"
	"reflect"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is a started span; its methods do nothing on a nil Span, which is
// what every Start returns with tracing off or for a span not sampled.
//
// A Span is the record the exporter reads: what a span is started with
// and what is set on it are kept here as given, and the ended Span goes
// to the batcher as it is. OTLP's values are built on the exporting
// goroutine, not the turn's, and the Span is kept for reuse once its
// batch is exported, so a turn's spans allocate nothing but the contexts
// that carry them.
type Span struct {
	rec        *recorder
	sc, parent trace.SpanContext
	name       string
	kind       trace.SpanKind
	start, end int64 // Unix nanoseconds
	attrs      []attribute.KeyValue
	dropped    int // attributes past the limit, or without a key

	status    codes.Code
	statusMsg string
	// failure is the error End was given: an "exception" event.
	failure *exception
}

// exception is an error recorded on a span, OpenTelemetry's exception event.
type exception struct {
	at           int64
	typ, message string
}

// spanAttrs is the room for attributes a Span has without growing: the
// most a run's span or a model call's span sets.
const spanAttrs = 9

// attrLimit is the most attributes a span keeps, the SDK's default:
// past it they are dropped and counted.
const attrLimit = 128

// newSpan is an empty Span with room for spanAttrs attributes.
func newSpan() *Span {
	return &Span{attrs: make([]attribute.KeyValue, 0, spanAttrs)}
}

// reset empties s for reuse; false when it is not worth keeping (grown
// by an unusual span).
func (s *Span) reset() bool {
	if cap(s.attrs) > spanAttrs {
		return false
	}
	attrs := s.attrs[:0]
	clear(s.attrs)
	*s = Span{attrs: attrs}
	return true
}

// set records one attribute: a key set again keeps its last value, as
// the SDK's span does.
func (s *Span) set(kv attribute.KeyValue) {
	if !kv.Valid() {
		s.dropped++
		return
	}
	for i := range s.attrs {
		if s.attrs[i].Key == kv.Key {
			s.attrs[i].Value = kv.Value
			return
		}
	}
	if len(s.attrs) >= attrLimit {
		s.dropped++
		return
	}
	s.attrs = append(s.attrs, kv)
}

// End ends the span; err, when not nil, marks it failed and is recorded
// as an exception event. End is the span's last use: the Span is reused
// once exported.
func (s *Span) End(err error) {
	if s == nil || s.end != 0 {
		return // a second End while the span waits for export: it is queued once
	}
	s.end = time.Now().UnixNano()
	if err != nil {
		s.failure = &exception{at: s.end, typ: typeName(err), message: err.Error()}
		s.setStatus(codes.Error, s.failure.message)
	}
	s.rec.batcher.OnEnd(s)
}

// setStatus sets the status as the SDK does: Ok is final, and a status
// is not lowered.
func (s *Span) setStatus(c codes.Code, msg string) {
	if s.status > c {
		return
	}
	if c != codes.Error {
		msg = ""
	}
	s.status, s.statusMsg = c, msg
}

// typeName names err's type as OpenTelemetry's exception.type does.
func typeName(err error) string {
	t := reflect.TypeOf(err)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// Fail marks the span failed with msg, without ending it.
func (s *Span) Fail(msg string) {
	if s == nil {
		return
	}
	s.setStatus(codes.Error, msg)
}

// SetString sets one string attribute.
func (s *Span) SetString(key, value string) {
	if s == nil {
		return
	}
	s.set(attribute.String(key, value))
}

// SetInt sets one integer attribute.
func (s *Span) SetInt(key string, value int64) {
	if s == nil {
		return
	}
	s.set(attribute.Int64(key, value))
}

// TraceID is the span's trace id ("" on a nil Span).
func (s *Span) TraceID() string {
	if s == nil {
		return ""
	}
	return s.sc.TraceID().String()
}

// begin makes the span context of a new span named name under parent
// (invalid: a new trace) and, when the span is sampled, its record,
// started now. Like the SDK's, a span not sampled still has its own
// span id, so the work under it propagates a context of its own.
func begin(parent trace.SpanContext, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (trace.SpanContext, *Span) {
	r := installed.Load()
	if r == nil {
		return trace.SpanContext{}, nil
	}
	tid := parent.TraceID()
	if !tid.IsValid() {
		tid = newTraceID()
	}
	cfg := trace.SpanContextConfig{TraceID: tid, SpanID: newSpanID(), TraceState: parent.TraceState(),
		TraceFlags: parent.TraceFlags() &^ trace.FlagsSampled}
	sampled := r.sampler.sampled(parent, tid)
	if sampled {
		cfg.TraceFlags |= trace.FlagsSampled
	}
	sc := trace.NewSpanContext(cfg)
	if !sampled {
		return sc, nil
	}
	s := r.batcher.take()
	s.rec, s.sc, s.parent, s.name, s.kind = r, sc, parent, name, kind
	s.start = time.Now().UnixNano()
	for _, kv := range attrs {
		s.set(kv)
	}
	return sc, s
}

// start starts a span of kind with attrs under ctx's span, and returns
// ctx with the new span's context.
func start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	return startUnder(ctx, trace.SpanContextFromContext(ctx), name, kind, attrs...)
}

// startUnder is start under parent rather than ctx's span.
func startUnder(ctx context.Context, parent trace.SpanContext, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	sc, s := begin(parent, name, kind, attrs...)
	if !sc.IsValid() {
		return ctx, nil
	}
	return trace.ContextWithSpanContext(ctx, sc), s
}

// parentOf is the span context traceparent names, else ctx's.
func parentOf(ctx context.Context, traceparent string) trace.SpanContext {
	if traceparent == "" {
		return trace.SpanContextFromContext(ctx)
	}
	if sc, ok := parseTraceParent(traceparent); ok {
		return sc
	}
	return trace.SpanContextFromContext(Extract(ctx, traceparent))
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
	return startUnder(ctx, parentOf(ctx, r.TraceParent), invokeAgentNames.get(r.AgentID), trace.SpanKindInternal,
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
	s.set(attribute.Int64("gen_ai.usage.input_tokens", inputTokens))
	s.set(attribute.Int64("gen_ai.usage.output_tokens", outputTokens))
	if responseModel != "" {
		s.set(attribute.String("gen_ai.response.model", responseModel))
	}
	if stopReason != "" {
		s.set(finishReasons.get(stopReason))
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
	return startUnder(ctx, parentOf(ctx, traceparent), "deliver "+kind, trace.SpanKindProducer,
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
