package gateway

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// HeaderRequestID carries a request's id: every response has it (a sane
// client-sent value is echoed, else one is generated), error bodies repeat
// it as error.requestId, and every 5xx is logged with it and its cause.
const HeaderRequestID = "X-Request-Id"

// maxRequestIDLen bounds a client-sent request id.
const maxRequestIDLen = 128

// saneRequestID reports whether a client-sent id may be echoed: 1..128
// characters of letters, digits and - _ . : / + = (no spaces, no
// control characters, nothing a log or header could be confused by).
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '=':
		default:
			return false
		}
	}
	return true
}

// outerware wraps every request: request id, the browser policy (with
// CORS answers for allowed cross-origin callers), a bound on reading the
// body, and a log line for every 5xx with its cause.
func (s *Server) outerware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderRequestID)
		if !saneRequestID(id) {
			id = domain.NewID()
		}
		w.Header().Set(HeaderRequestID, id)
		rw := &respWriter{ResponseWriter: w, id: id}
		start := time.Now()
		defer func() { s.logFailure(rw, r, start) }()

		if origin := s.policy.corsOrigin(r); origin != "" {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", HeaderRequestID)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" && s.policy.check(r) == nil {
				h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, "+HeaderAs+", "+HeaderRequestID)
				h.Set("Access-Control-Max-Age", "600")
				rw.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if perr := s.policy.check(r); perr != nil {
			code := domain.CodeForbidden
			if perr.status != http.StatusForbidden {
				code = domain.CodeInvalid
			}
			s.log.Info("request refused", "requestId", id, "status", perr.status, "method", r.Method, "path", r.URL.Path,
				"remote", r.RemoteAddr, "reason", perr.msg)
			if a2a.IsEndpoint(r.URL.Path) {
				a2a.WriteRefusal(rw, perr.status, code, perr.msg)
				return
			}
			writeJSON(rw, perr.status, errorBody(code, perr.msg, id))
			return
		}
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 && s.limits.readTimeout > 0 {
			rc := http.NewResponseController(w)
			if err := rc.SetReadDeadline(time.Now().Add(s.limits.readTimeout)); err == nil {
				// Lifted once the body is read; a body that is never read
				// in full keeps it, so the server's drain after the
				// answer cannot hang either.
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(rw, r)
	})
}

// logFailure logs a 5xx answer with its request id and cause.
func (s *Server) logFailure(rw *respWriter, r *http.Request, start time.Time) {
	if rw.status < 500 {
		return
	}
	cause := "(not recorded)"
	if rw.cause != nil {
		cause = rw.cause.Error()
	}
	level := slog.LevelError
	if rw.status == http.StatusServiceUnavailable {
		level = slog.LevelWarn
	}
	attrs := []any{"requestId", rw.id, "status", rw.status, "method", r.Method, "path", r.URL.Path,
		"remote", r.RemoteAddr, "ms", time.Since(start).Milliseconds(), "err", cause}
	if rw.principal != "" {
		attrs = append(attrs, "principal", rw.principal)
	}
	s.log.Log(r.Context(), level, "request failed", attrs...)
}

// respWriter records the status, the cause of an error answer and the
// caller, for the 5xx log line.
type respWriter struct {
	http.ResponseWriter
	id        string
	status    int
	cause     error
	principal string
}

func (w *respWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *respWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController and the WebSocket upgrade reach the
// connection.
func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes on (streamed MCP answers).
func (w *respWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Hijack hands the connection over (WebSocket upgrade).
func (w *respWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.status = http.StatusSwitchingProtocols
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// recordCause notes the error behind an answer on w, when w is the
// server's writer.
func recordCause(w http.ResponseWriter, err error) {
	if rw, ok := w.(*respWriter); ok {
		rw.cause = err
	}
}

// recordPrincipal notes who made the request, when w is the server's
// writer.
func recordPrincipal(w http.ResponseWriter, name string) {
	if rw, ok := w.(*respWriter); ok {
		rw.principal = name
	}
}

// requestIDOf is the request id of the answer on w ("" when unknown).
func requestIDOf(w http.ResponseWriter) string { return w.Header().Get(HeaderRequestID) }

// deadlineBody lifts the body read deadline once the body has been read
// to its end, so a long wait after it is not cut off.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	if isTimeout(err) {
		err = errBodyTimeout
	}
	return n, err
}

// errBodyTimeout is a body that did not arrive in time (408).
var errBodyTimeout = errors.New("request body not received in time")

func isTimeout(err error) bool {
	var ne net.Error
	return err != nil && errors.As(err, &ne) && ne.Timeout()
}
