package tracing

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Inject is the W3C traceparent of ctx's span, "" when tracing is off or
// ctx has none: what a run created under ctx keeps in its spec.
func Inject(ctx context.Context) string {
	if !Enabled() {
		return ""
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	var c w3c
	propagator.Inject(ctx, &c)
	return c.parent
}

// Extract returns ctx with traceparent as its remote parent ("" or an
// invalid value: ctx unchanged).
func Extract(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" || !Enabled() {
		return ctx
	}
	return propagator.Extract(ctx, &w3c{parent: traceparent})
}

// w3c carries one trace context's W3C fields between a string and the
// propagator: every run start extracts one and every run created injects
// one, without a map each time.
type w3c struct{ parent, state string }

func (c *w3c) Get(key string) string {
	switch key {
	case "traceparent":
		return c.parent
	case "tracestate":
		return c.state
	}
	return ""
}

func (c *w3c) Set(key, value string) {
	switch key {
	case "traceparent":
		c.parent = value
	case "tracestate":
		c.state = value
	}
}

func (c *w3c) Keys() []string { return []string{"traceparent", "tracestate"} }

// ExtractHeaders returns ctx with the trace context of h (traceparent,
// tracestate) as its remote parent.
func ExtractHeaders(ctx context.Context, h http.Header) context.Context {
	if !Enabled() || h.Get("traceparent") == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// InjectHeaders writes ctx's trace context into h (an outbound request).
func InjectHeaders(ctx context.Context, h http.Header) {
	if !Enabled() {
		return
	}
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// TraceID is the trace id (32 hex digits) of a W3C traceparent, "" when
// it is not one. It works with tracing off: stored runs keep their ids.
func TraceID(traceparent string) string {
	// version "-" trace-id "-" parent-id "-" flags
	if len(traceparent) < 55 || traceparent[2] != '-' || traceparent[35] != '-' {
		return ""
	}
	id := traceparent[3:35]
	if _, err := trace.TraceIDFromHex(id); err != nil {
		return ""
	}
	return id
}

// Root is Inject(ctx) when ctx has a span; otherwise it records a root
// span named name for work that starts outside any trace (a CLI command,
// a channel message) and returns its traceparent, so the run it creates,
// and everything that follows from it, has a trace id from the start.
func Root(ctx context.Context, name string) string {
	if !Enabled() {
		return ""
	}
	if tp := Inject(ctx); tp != "" {
		return tp
	}
	ctx, sp := tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
	defer sp.End()
	return Inject(ctx)
}

// ExtractState is Extract with the W3C tracestate that goes with
// traceparent ("" for none), for carriers that are not HTTP headers
// (an MCP request's _meta).
func ExtractState(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" || !Enabled() {
		return ctx
	}
	return propagator.Extract(ctx, &w3c{parent: traceparent, state: tracestate})
}
