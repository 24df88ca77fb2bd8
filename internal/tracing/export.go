package tracing

import (
	"context"
	"fmt"
	"math"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// exporter converts each batch of ended spans to OTLP's messages and
// hands them to an OTLP client (otlptracehttp's: its endpoint, headers,
// compression, retries and the OTEL_EXPORTER_OTLP_* variables). The
// conversion is OTLP's usual one, but writes into messages kept from the
// batch before (the client has encoded them by the time UploadTraces
// returns): a batch allocates nothing per span or attribute, where a new
// message for each would be garbage that every turn's span pays for in
// collections.
type exporter struct {
	client otlptrace.Client

	mu      sync.Mutex
	stopped bool
	b       pbBatch
}

// newExporter starts client and exports through it.
func newExporter(ctx context.Context, client otlptrace.Client) (*exporter, error) {
	if err := client.Start(ctx); err != nil {
		return nil, err
	}
	e := &exporter{client: client}
	e.setResource(nil)
	return e, nil
}

// setResource is the resource every span is exported with (nil: none),
// switchboard's one instrumentation scope inside it.
func (e *exporter) setResource(res *resource.Resource) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.b.rs = &tracepb.ResourceSpans{ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: tracerName}}}}
	if res != nil {
		e.b.rs.Resource = &resourcepb.Resource{Attributes: iterValues(res.Iter())}
		e.b.rs.SchemaUrl = res.SchemaURL()
	}
}

// ExportSpans sends spans as one OTLP request.
func (e *exporter) ExportSpans(ctx context.Context, spans []*Span) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped || len(spans) == 0 {
		return nil
	}
	defer e.b.reset()
	if err := e.client.UploadTraces(ctx, e.b.convert(spans)); err != nil {
		return fmt.Errorf("traces export: %w", err)
	}
	return nil
}

// Shutdown stops the client; later exports send nothing.
func (e *exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil
	}
	e.stopped = true
	return e.client.Stop(ctx)
}

// pbBatch holds the OTLP messages of one batch, reused by the next.
type pbBatch struct {
	spans    arena[tracepb.Span]
	statuses arena[tracepb.Status]
	kvs      arena[commonpb.KeyValue]
	anys     arena[commonpb.AnyValue]
	strs     arena[commonpb.AnyValue_StringValue]
	ints     arena[commonpb.AnyValue_IntValue]
	arrays   arena[commonpb.ArrayValue]
	arrayVs  arena[commonpb.AnyValue_ArrayValue]
	anyPtrs  slab[*commonpb.AnyValue]
	spanPtrs slab[*tracepb.Span]
	kvPtrs   slab[*commonpb.KeyValue]
	ids      slab[byte]

	// rs is the batch's one ResourceSpans: every span has the same
	// resource and scope.
	rs  *tracepb.ResourceSpans
	out [1]*tracepb.ResourceSpans
}

// convert is spans as OTLP's ResourceSpans.
func (b *pbBatch) convert(spans []*Span) []*tracepb.ResourceSpans {
	all := b.spanPtrs.take(len(spans))
	for i, sd := range spans {
		all[i] = b.span(sd)
	}
	b.rs.ScopeSpans[0].Spans = all
	b.out[0] = b.rs
	return b.out[:]
}

// span is sd as an OTLP span.
func (b *pbBatch) span(sd *Span) *tracepb.Span {
	sc, parent := sd.sc, sd.parent
	s := b.spans.next()
	s.TraceId = b.id(sc.TraceID())
	s.SpanId = b.spanID(sc.SpanID())
	s.TraceState = sc.TraceState().String()
	if psid := parent.SpanID(); psid.IsValid() {
		s.ParentSpanId = b.spanID(psid)
	}
	s.Flags = spanFlags(sc.TraceFlags(), parent)
	s.Name = sd.name
	s.Kind = spanKind(sd.kind)
	s.StartTimeUnixNano = unixNano(sd.start)
	s.EndTimeUnixNano = unixNano(sd.end)
	s.Attributes = b.keyValues(sd.attrs)
	s.DroppedAttributesCount = clampUint32(sd.dropped)
	if e := sd.failure; e != nil {
		s.Events = []*tracepb.Span_Event{{Name: "exception", TimeUnixNano: unixNano(e.at), Attributes: b.keyValues([]attribute.KeyValue{
			attribute.String("exception.type", e.typ), attribute.String("exception.message", e.message)})}}
	}
	s.Status = b.statuses.next()
	s.Status.Code = statusCode(sd.status)
	s.Status.Message = sd.statusMsg
	return s
}

func (b *pbBatch) id(id trace.TraceID) []byte {
	out := b.ids.take(len(id))
	copy(out, id[:])
	return out
}

func (b *pbBatch) spanID(id trace.SpanID) []byte {
	out := b.ids.take(len(id))
	copy(out, id[:])
	return out
}

func (b *pbBatch) keyValues(attrs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(attrs) == 0 {
		return nil
	}
	out := b.kvPtrs.take(len(attrs))
	for i, a := range attrs {
		kv := b.kvs.next()
		kv.Key = string(a.Key)
		kv.Value = b.value(a.Value)
		out[i] = kv
	}
	return out
}

// value is v as an OTLP value: strings, integers and string lists (a
// model call's finish reasons) from the batch's messages, the rest (rare
// on switchboard's spans) newly made.
func (b *pbBatch) value(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.STRING:
		av, s := b.anys.next(), b.strs.next()
		s.StringValue = v.AsString()
		av.Value = s
		return av
	case attribute.INT64:
		av, n := b.anys.next(), b.ints.next()
		n.IntValue = v.AsInt64()
		av.Value = n
		return av
	case attribute.STRINGSLICE:
		ss := v.AsStringSlice()
		vals := b.anyPtrs.take(len(ss))
		for i, str := range ss {
			e, s := b.anys.next(), b.strs.next()
			s.StringValue = str
			e.Value = s
			vals[i] = e
		}
		av, arr, wrap := b.anys.next(), b.arrays.next(), b.arrayVs.next()
		arr.Values = vals
		wrap.ArrayValue = arr
		av.Value = wrap
		return av
	}
	return anyValue(v)
}

func (b *pbBatch) reset() {
	b.spans.reset()
	b.statuses.reset()
	b.kvs.reset()
	b.anys.reset()
	b.strs.reset()
	b.ints.reset()
	b.arrays.reset()
	b.arrayVs.reset()
	b.anyPtrs.reset()
	b.spanPtrs.reset()
	b.kvPtrs.reset()
	b.ids.reset()
	b.rs.ScopeSpans[0].Spans = nil
}

// anyValue is v as a newly made OTLP value.
func anyValue(v attribute.Value) *commonpb.AnyValue {
	av := &commonpb.AnyValue{}
	switch v.Type() {
	case attribute.BOOL:
		av.Value = &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}
	case attribute.INT64:
		av.Value = &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}
	case attribute.FLOAT64:
		av.Value = &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}
	case attribute.STRING:
		av.Value = &commonpb.AnyValue_StringValue{StringValue: v.AsString()}
	case attribute.BYTESLICE:
		av.Value = &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}
	case attribute.BOOLSLICE:
		av.Value = array(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		av.Value = array(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		av.Value = array(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		av.Value = array(v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		av.Value = array(v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		m := v.AsMap()
		kvs := make([]*commonpb.KeyValue, len(m))
		for i, kv := range m {
			kvs[i] = &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)}
		}
		av.Value = &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: kvs}}
	case attribute.EMPTY:
	default:
		av.Value = &commonpb.AnyValue_StringValue{StringValue: "INVALID"}
	}
	return av
}

func array[T any](vs []T, value func(T) attribute.Value) *commonpb.AnyValue_ArrayValue {
	out := make([]*commonpb.AnyValue, len(vs))
	for i, v := range vs {
		out[i] = anyValue(value(v))
	}
	return &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: out}}
}

func iterValues(it attribute.Iterator) []*commonpb.KeyValue {
	if it.Len() == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, 0, it.Len())
	for it.Next() {
		a := it.Attribute()
		out = append(out, &commonpb.KeyValue{Key: string(a.Key), Value: anyValue(a.Value)})
	}
	return out
}

func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	flags := uint32(tf) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	if parent.IsRemote() {
		flags |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	return flags
}

func spanKind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func statusCode(c codes.Code) tracepb.Status_StatusCode {
	switch c {
	case codes.Ok:
		return tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		return tracepb.Status_STATUS_CODE_ERROR
	}
	return tracepb.Status_STATUS_CODE_UNSET
}

func unixNano(n int64) uint64 { return uint64(max(0, n)) }

func clampUint32(v int) uint32 {
	return uint32(min(max(v, 0), math.MaxUint32))
}
