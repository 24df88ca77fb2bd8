// Package otlptest is an OTLP/HTTP trace receiver for tests: it decodes
// what an exporter posts to /v1/traces (protobuf, optionally gzipped)
// with the OTLP protocol's own generated types and keeps the spans.
package otlptest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, flattened.
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Kind                      int32
	Attrs                     map[string]any
	Service                   string
	Error                     bool
}

// Receiver is a running OTLP/HTTP endpoint.
type Receiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	spans   []Span
	changed chan struct{}
	posts   int
}

// Start serves a receiver on loopback; Close stops it.
func Start() *Receiver {
	r := &Receiver{changed: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

// URL is the receiver's base URL (the exporter appends /v1/traces).
func (r *Receiver) URL() string { return r.srv.URL }

// Close stops the receiver.
func (r *Receiver) Close() { r.srv.Close() }

// Posts is the number of export requests received.
func (r *Receiver) Posts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					Name: s.GetName(), Kind: int32(s.GetKind()), Attrs: map[string]any{}, Service: service,
					Error: s.GetStatus().GetCode() == 2}
				if len(s.GetParentSpanId()) > 0 {
					sp.ParentID = hex.EncodeToString(s.GetParentSpanId())
				}
				for _, kv := range s.GetAttributes() {
					v := kv.GetValue()
					switch {
					case v.GetStringValue() != "":
						sp.Attrs[kv.GetKey()] = v.GetStringValue()
					default:
						sp.Attrs[kv.GetKey()] = v.GetIntValue()
					}
				}
				got = append(got, sp)
			}
		}
	}
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
	r.mu.Lock()
	r.posts++
	r.spans = append(r.spans, got...)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// WaitFor returns once ok holds for the spans received, or false at
// ctx's end (or after timeout).
func (r *Receiver) WaitFor(ctx context.Context, timeout time.Duration, ok func([]Span) bool) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		r.mu.Lock()
		spans := append([]Span(nil), r.spans...)
		ch := r.changed
		r.mu.Unlock()
		if ok(spans) {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}
