package tracing

import (
	"context"
	"fmt"
	"math"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// exporter is the SDK's span exporter: it converts each batch to OTLP's
// messages and hands them to an OTLP client (otlptracehttp's: its
// endpoint, headers, compression, retries and the OTEL_EXPORTER_OTLP_*
// variables). The conversion is OTLP's usual one, but writes into
// messages kept from the batch before (the client has encoded them by
// the time UploadTraces returns): a batch allocates nothing per span or
// attribute, where a new message for each would be garbage that every
// turn's span pays for in collections.
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
	return &exporter{client: client}, nil
}

// ExportSpans sends spans as one OTLP request.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped || len(spans) == 0 {
		return nil
	}
	defer e.b.reset()
	rs := e.b.convert(spans)
	if len(rs) == 0 {
		return nil
	}
	if err := e.client.UploadTraces(ctx, rs); err != nil {
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

	// The batch's resources and, in each, its scopes, in the order they
	// first appear, and the scope group of each span.
	resources []*tracepb.ResourceSpans
	groups    []scopeGroup
	owner     []int

	// The resource and scope messages are the same batch after batch.
	resourceMsgs map[attribute.Distinct]*resourcepb.Resource
	scopeMsgs    map[instrumentation.Scope]*commonpb.InstrumentationScope
}

// scopeGroup is the ScopeSpans of one resource and scope in a batch.
type scopeGroup struct {
	res   attribute.Distinct
	scope instrumentation.Scope
	ss    *tracepb.ScopeSpans
}

// convert is spans as OTLP's ResourceSpans, grouped by resource, then
// by instrumentation scope, in the order they first appear.
func (b *pbBatch) convert(spans []sdktrace.ReadOnlySpan) []*tracepb.ResourceSpans {
	all := b.spanPtrs.take(len(spans))[:0]
	for _, sd := range spans {
		if sd == nil {
			continue
		}
		b.owner = append(b.owner, b.group(sd))
		all = append(all, b.span(sd))
	}
	if len(b.groups) == 1 { // the usual case: every span in one scope
		b.groups[0].ss.Spans = all
		return b.resources
	}
	for gi := range b.groups {
		n := 0
		for _, o := range b.owner {
			if o == gi {
				n++
			}
		}
		list := b.spanPtrs.take(n)[:0]
		for i, o := range b.owner {
			if o == gi {
				list = append(list, all[i])
			}
		}
		b.groups[gi].ss.Spans = list
	}
	return b.resources
}

// group is the index of sd's scope group, added (and its resource's
// ResourceSpans, when new) the first time.
func (b *pbBatch) group(sd sdktrace.ReadOnlySpan) int {
	res, scope := sd.Resource(), sd.InstrumentationScope()
	key := res.Equivalent()
	for i, g := range b.groups {
		if g.res == key && g.scope == scope {
			return i
		}
	}
	ss := &tracepb.ScopeSpans{Scope: b.scopeMsg(scope), SchemaUrl: scope.SchemaURL}
	var rs *tracepb.ResourceSpans
	for _, g := range b.groups {
		if g.res == key {
			rs = b.resourceOf(g.ss)
			break
		}
	}
	if rs == nil {
		rs = &tracepb.ResourceSpans{Resource: b.resourceMsg(res, key), SchemaUrl: res.SchemaURL()}
		b.resources = append(b.resources, rs)
	}
	rs.ScopeSpans = append(rs.ScopeSpans, ss)
	b.groups = append(b.groups, scopeGroup{res: key, scope: scope, ss: ss})
	return len(b.groups) - 1
}

// resourceOf is the ResourceSpans that holds ss.
func (b *pbBatch) resourceOf(ss *tracepb.ScopeSpans) *tracepb.ResourceSpans {
	for _, rs := range b.resources {
		for _, s := range rs.ScopeSpans {
			if s == ss {
				return rs
			}
		}
	}
	return nil
}

func (b *pbBatch) resourceMsg(res *resource.Resource, key attribute.Distinct) *resourcepb.Resource {
	if res == nil {
		return nil
	}
	if m, ok := b.resourceMsgs[key]; ok {
		return m
	}
	m := &resourcepb.Resource{Attributes: iterValues(res.Iter())}
	if b.resourceMsgs == nil || len(b.resourceMsgs) >= memoLimit {
		b.resourceMsgs = map[attribute.Distinct]*resourcepb.Resource{}
	}
	b.resourceMsgs[key] = m
	return m
}

func (b *pbBatch) scopeMsg(s instrumentation.Scope) *commonpb.InstrumentationScope {
	if s == (instrumentation.Scope{}) {
		return nil
	}
	if m, ok := b.scopeMsgs[s]; ok {
		return m
	}
	m := &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: iterValues(s.Attributes.Iter())}
	if b.scopeMsgs == nil || len(b.scopeMsgs) >= memoLimit {
		b.scopeMsgs = map[instrumentation.Scope]*commonpb.InstrumentationScope{}
	}
	b.scopeMsgs[s] = m
	return m
}

// span is sd as an OTLP span.
func (b *pbBatch) span(sd sdktrace.ReadOnlySpan) *tracepb.Span {
	sc, parent := sd.SpanContext(), sd.Parent()
	s := b.spans.next()
	s.TraceId = b.id(sc.TraceID())
	s.SpanId = b.spanID(sc.SpanID())
	s.TraceState = sc.TraceState().String()
	if psid := parent.SpanID(); psid.IsValid() {
		s.ParentSpanId = b.spanID(psid)
	}
	s.Flags = spanFlags(sc.TraceFlags(), parent)
	s.Name = sd.Name()
	s.Kind = spanKind(sd.SpanKind())
	s.StartTimeUnixNano = unixNano(sd.StartTime().UnixNano())
	s.EndTimeUnixNano = unixNano(sd.EndTime().UnixNano())
	s.Attributes = b.keyValues(sd.Attributes())
	s.DroppedAttributesCount = clampUint32(sd.DroppedAttributes())
	s.Events = b.events(sd.Events())
	s.DroppedEventsCount = clampUint32(sd.DroppedEvents())
	s.Links = b.links(sd.Links())
	s.DroppedLinksCount = clampUint32(sd.DroppedLinks())
	st := sd.Status()
	s.Status = b.statuses.next()
	s.Status.Code = statusCode(st.Code)
	s.Status.Message = st.Description
	return s
}

func (b *pbBatch) events(es []sdktrace.Event) []*tracepb.Span_Event {
	if len(es) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Event, len(es))
	for i, e := range es {
		out[i] = &tracepb.Span_Event{Name: e.Name, TimeUnixNano: unixNano(e.Time.UnixNano()),
			Attributes: b.keyValues(e.Attributes), DroppedAttributesCount: clampUint32(e.DroppedAttributeCount)}
	}
	return out
}

func (b *pbBatch) links(ls []sdktrace.Link) []*tracepb.Span_Link {
	if len(ls) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Link, len(ls))
	for i, l := range ls {
		out[i] = &tracepb.Span_Link{TraceId: b.id(l.SpanContext.TraceID()), SpanId: b.spanID(l.SpanContext.SpanID()),
			TraceState: l.SpanContext.TraceState().String(), Attributes: b.keyValues(l.Attributes),
			DroppedAttributesCount: clampUint32(l.DroppedAttributeCount), Flags: spanFlags(l.SpanContext.TraceFlags(), l.SpanContext)}
	}
	return out
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
	clear(b.resources)
	b.resources = b.resources[:0]
	clear(b.groups)
	b.groups = b.groups[:0]
	b.owner = b.owner[:0]
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
