package gateway

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-go/switchboard/internal/tracing"
)

// traceRequest starts the span of one WebSocket request, under the
// request's own traceparent, else the upgrade request's.
func (c *conn) traceRequest(f reqFrame) (context.Context, *tracing.Span) {
	if !tracing.Enabled() {
		return c.ctx, nil
	}
	tp := f.TraceParent
	if tp == "" {
		tp = c.traceparent
	}
	return tracing.StartServer(tracing.Extract(c.ctx, tp), "ws "+f.Method,
		attribute.String("rpc.system", "switchboard-ws"), attribute.String("rpc.method", f.Method),
		attribute.String("switchboard.principal", c.grant.name))
}

// traceHTTP gives every HTTP request (the JSON API, MCP over HTTP, A2A)
// a server span under the caller's traceparent header.
func traceHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !tracing.Enabled() || r.Header.Get("Upgrade") != "" {
			h.ServeHTTP(w, r)
			return
		}
		ctx, span := tracing.StartServer(tracing.ExtractHeaders(r.Context(), r.Header), r.Method+" "+r.URL.Path,
			attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path))
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r.WithContext(ctx))
		span.SetInt("http.response.status_code", int64(sw.code))
		if sw.code >= 500 {
			span.Fail(http.StatusText(sw.code))
		}
		span.End(nil)
	})
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (flushes of
// streamed answers).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes a streamed answer (SSE) for handlers that assert
// http.Flusher.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }
