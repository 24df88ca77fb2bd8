package tracing

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// uploads is an OTLP client that keeps a copy of what it is given.
type uploads struct{ got [][]*tracepb.ResourceSpans }

func (u *uploads) Start(context.Context) error { return nil }
func (u *uploads) Stop(context.Context) error  { return nil }
func (u *uploads) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	cp := make([]*tracepb.ResourceSpans, len(rs))
	for i, r := range rs {
		cp[i] = proto.Clone(r).(*tracepb.ResourceSpans)
	}
	u.got = append(u.got, cp)
	return nil
}

// stub is s as the SDK's test span, with res and switchboard's scope.
func stub(s *Span, res *resource.Resource) tracetest.SpanStub {
	scope := instrumentation.Scope{Name: tracerName}
	st := tracetest.SpanStub{Name: s.name, SpanContext: s.sc, Parent: s.parent, SpanKind: s.kind,
		StartTime: time.Unix(0, s.start), EndTime: time.Unix(0, s.end), Attributes: s.attrs, DroppedAttributes: s.dropped,
		Status:   sdktrace.Status{Code: s.status, Description: s.statusMsg},
		Resource: res, InstrumentationScope: scope, InstrumentationLibrary: scope}
	if e := s.failure; e != nil {
		st.Events = []sdktrace.Event{{Name: "exception", Time: time.Unix(0, e.at),
			Attributes: []attribute.KeyValue{attribute.String("exception.type", e.typ), attribute.String("exception.message", e.message)}}}
	}
	return st
}

// TestExporterMatchesOTLP: the exporter's messages are those the OTLP
// exporter makes of the same spans — every field, attribute type, event,
// status and flag — batch after batch, though it reuses them.
func TestExporterMatchesOTLP(t *testing.T) {
	ctx := context.Background()
	res := resource.NewSchemaless(attribute.String("service.name", "switchboard"))
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2},
		TraceFlags: trace.FlagsSampled, Remote: true})
	ts, _ := trace.ParseTraceState("vendor=1")
	now := time.Now().UnixNano()
	span := func(i byte) *Span {
		s := &Span{name: "invoke_agent main",
			sc: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{i},
				TraceFlags: trace.FlagsSampled, TraceState: ts}),
			parent: remote, kind: trace.SpanKind(i%5 + 1), start: now, end: now + int64(i),
			attrs: []attribute.KeyValue{attribute.String("s", "v"), attribute.Int64("n", int64(i)),
				attribute.Bool("b", true), attribute.Float64("f", 1.5), attribute.StringSlice("ss", []string{"stop"}),
				attribute.Int64Slice("ns", []int64{1, 2}), attribute.BoolSlice("bs", []bool{true}), attribute.Float64Slice("fs", []float64{2.5}),
				attribute.ByteSlice("by", []byte("x")), attribute.Slice("sl", attribute.IntValue(1), attribute.StringValue("a")),
				attribute.Map("m", attribute.String("k", "v"), attribute.Bool("t", false))},
			dropped: 3}
		return s
	}
	failed := span(5)
	failed.failure = &exception{at: now + 1, typ: typeName(errors.New("x")), message: "boom"}
	failed.status, failed.statusMsg = codes.Error, "boom"
	root := &Span{name: "bare", sc: remote, start: now, end: now}
	batches := [][]*Span{
		{span(3), span(4)},
		{failed},
		{span(6), root, span(8)},
	}
	want, got := &uploads{}, &uploads{}
	ref, err := otlptrace.New(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := newExporter(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	exp.setResource(res)
	for _, b := range batches {
		stubs := make(tracetest.SpanStubs, len(b))
		for i, s := range b {
			stubs[i] = stub(s, res)
		}
		if err := ref.ExportSpans(ctx, stubs.Snapshots()); err != nil {
			t.Fatal(err)
		}
		if err := exp.ExportSpans(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.got) != len(want.got) {
		t.Fatalf("%d uploads, want %d", len(got.got), len(want.got))
	}
	for i := range want.got {
		if !sameResourceSpans(got.got[i], want.got[i]) {
			t.Errorf("batch %d:\n got %v\nwant %v", i, got.got[i], want.got[i])
		}
	}
}

// sameResourceSpans compares two uploads whatever the order of their
// resources (the OTLP exporter's comes from a map).
func sameResourceSpans(a, b []*tracepb.ResourceSpans) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
next:
	for _, x := range a {
		for j, y := range b {
			if !used[j] && proto.Equal(x, y) {
				used[j] = true
				continue next
			}
		}
		return false
	}
	return true
}

// failing is an OTLP client whose uploads fail.
type failing struct{ uploads }

func (f *failing) UploadTraces(context.Context, []*tracepb.ResourceSpans) error {
	return errors.New("collector down")
}

// TestExporterError: a failed upload is the export's error, and the
// exporter sends nothing once shut down.
func TestExporterError(t *testing.T) {
	ctx := context.Background()
	exp, err := newExporter(ctx, &failing{})
	if err != nil {
		t.Fatal(err)
	}
	spans := []*Span{{name: "x"}}
	if err := exp.ExportSpans(ctx, spans); err == nil || err.Error() != "traces export: collector down" {
		t.Errorf("ExportSpans = %v, want the upload's error", err)
	}
	if err := exp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(ctx, spans); err != nil {
		t.Errorf("ExportSpans after Shutdown = %v, want nothing sent", err)
	}
}
