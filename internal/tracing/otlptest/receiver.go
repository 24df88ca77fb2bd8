// Package otlptest is an OTLP/HTTP trace receiver for tests: it decodes
// what an exporter posts to /v1/traces (protobuf, optionally gzipped)
// with the OTLP protocol's own generated types and keeps the spans. For
// benchmarks, StartDiscard only counts what arrives: a real collector
// decodes in its own process, so decoding here would bill its CPU to the
// code under measurement.
package otlptest

import (
	"bytes"
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
	srv     *httptest.Server
	discard bool

	mu      sync.Mutex
	spans   []Span
	changed chan struct{}
	posts   int
	bytes   int64
}

// Start serves a receiver on loopback that decodes and keeps every span;
// Close stops it.
func Start() *Receiver { return start(false) }

// StartDiscard serves a receiver that reads each export's body, counts
// the request and its bytes, and answers success without decoding it:
// Spans stays empty, Posts and Bytes grow.
func StartDiscard() *Receiver { return start(true) }

func start(discard bool) *Receiver {
	r := &Receiver{changed: make(chan struct{}), discard: discard}
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

// Bytes is the total size of the export bodies received, as sent (before
// any gzip is undone).
func (r *Receiver) Bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// countOnly answers an export that is not decoded.
func (r *Receiver) countOnly(w http.ResponseWriter, req *http.Request) {
	n, err := io.Copy(io.Discard, req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
	r.mu.Lock()
	r.posts++
	r.bytes += n
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	if r.discard {
		r.countOnly(w, req)
		return
	}
	sent, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	raw := sent
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(sent))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if raw, err = io.ReadAll(zr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
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
	r.bytes += int64(len(sent))
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
