package tracing

import (
	"context"
	"encoding/hex"
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
	return traceParent(trace.SpanContextFromContext(ctx))
}

// traceParent is sc as a version-00 W3C traceparent ("" when invalid),
// written as the propagator writes it (only the sampled and random flags
// kept) without a carrier to allocate.
func traceParent(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	var b [traceParentLen]byte
	tid, sid := sc.TraceID(), sc.SpanID()
	flags := [1]byte{byte(sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom))}
	copy(b[:], "00-")
	hex.Encode(b[3:35], tid[:])
	b[35] = '-'
	hex.Encode(b[36:52], sid[:])
	b[52] = '-'
	hex.Encode(b[53:55], flags[:])
	return string(b[:])
}

// Extract returns ctx with traceparent as its remote parent ("" or an
// invalid value: ctx unchanged).
func Extract(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" || !Enabled() {
		return ctx
	}
	if sc, ok := parseTraceParent(traceparent); ok {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return propagator.Extract(ctx, &w3c{parent: traceparent})
}

// parseTraceParent reads a version-00 traceparent as the propagator does
// (lower-case hex, flags 0..3, ids not all zero), without a carrier to
// allocate; ok is false for anything else, which the propagator reads.
func parseTraceParent(tp string) (sc trace.SpanContext, ok bool) {
	if len(tp) != traceParentLen || tp[:3] != "00-" || tp[35] != '-' || tp[52] != '-' {
		return sc, false
	}
	var c trace.SpanContextConfig
	var flags [1]byte
	if !lowerHex(c.TraceID[:], tp[3:35]) || !lowerHex(c.SpanID[:], tp[36:52]) || !lowerHex(flags[:], tp[53:55]) || flags[0] > 3 {
		return sc, false
	}
	c.TraceFlags = trace.TraceFlags(flags[0])
	c.Remote = true
	sc = trace.NewSpanContext(c)
	return sc, sc.IsValid()
}

// lowerHex decodes s (lower-case hex only, as W3C trace context writes
// it) into dst.
func lowerHex(dst []byte, s string) bool {
	for i := range dst {
		hi, okHi := hexDigit(s[2*i])
		lo, okLo := hexDigit(s[2*i+1])
		if !okHi || !okLo {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
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
	sc, sp := begin(trace.SpanContext{}, name, trace.SpanKindInternal)
	sp.End(nil)
	return traceParent(sc)
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
