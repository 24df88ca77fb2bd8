package mcpserver

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// principalCtx carries the request's principal from HTTPHandler's
// wrapper to the SDK's getServer callback.
type principalCtx struct{}

// HTTPHandler serves MCP over streamable HTTP, statelessly: every POST is
// a complete exchange (no Mcp-Session-Id, no affinity), so any replica can
// answer and a plain POST of one JSON-RPC request works. Responses are
// application/json, not event streams. GET and DELETE answer 405.
//
// resolve maps a request (its bearer token) to the principal the tools
// are called as: its scopes, its bound session, the requester it acts as.
// The engine's gate enforces all three, so a read-only token cannot send
// or spawn and a bound token is its session. A nil resolve makes every
// request the operator. A resolve error answers 401, or 403 for a
// domain.CodeForbidden error. Authentication itself is the caller's job
// (the gateway mounts this behind its bearer-token check).
func (s *Server) HTTPHandler(resolve func(r *http.Request) (api.Principal, error)) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		p, ok := r.Context().Value(principalCtx{}).(api.Principal)
		if !ok {
			p = api.Operator()
		}
		return s.serverFor(p)
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              s.log,
		MaxRequestBodyBytes: s.maxBody,
	})
	// Browsers must not drive the tools from another origin; programs
	// (which send no Sec-Fetch-Site or Origin) are unaffected.
	return framed(resolve, http.NewCrossOriginProtection().Handler(sdk), s.maxBody)
}

// framed is the request framing in front of the SDK: the principal from
// resolve in the request context, a POST's body admitted (admitPOST: size,
// batches, JSON) and its headers made complete, then next.
func framed(resolve func(r *http.Request) (api.Principal, error), next http.Handler, maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := api.Operator()
		if resolve != nil {
			var err error
			if p, err = resolve(r); err != nil {
				writeResolveError(w, err)
				return
			}
		}
		r = r.Clone(context.WithValue(r.Context(), principalCtx{}, p))
		if r.Method == http.MethodPost {
			if admitPOST(w, r, maxBody) {
				return
			}
			lenientPOST(r)
		}
		next.ServeHTTP(w, r)
	})
}

// lenientPOST fills in what the streamable transport demands of a POST
// but a hand-written client (curl) often leaves out: an Accept header
// naming both JSON and event streams (the answer is JSON either way), and
// a JSON Content-Type when none is given.
func lenientPOST(r *http.Request) {
	if !acceptsJSONAndStream(r.Header.Values("Accept")) {
		r.Header.Set("Accept", "application/json, text/event-stream")
	}
	if r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}
}

// acceptsJSONAndStream reports whether Accept values already satisfy the
// transport, so a header that does is passed on untouched.
func acceptsJSONAndStream(values []string) bool {
	var j, s bool
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case "*/*":
				j, s = true, true
			case "application/json", "application/*":
				j = true
			case "text/event-stream", "text/*":
				s = true
			}
		}
	}
	return j && s
}

// writeResolveError answers a request whose requester could not be
// resolved.
// The message of a coded error is shown; any other error's is not (it
// may carry internal detail).
func writeResolveError(w http.ResponseWriter, err error) {
	msg := "unauthorized: missing or unknown bearer token"
	var de *domain.Error
	if errors.As(err, &de) {
		msg = de.Message
		if de.Code == domain.CodeForbidden {
			http.Error(w, msg, http.StatusForbidden)
			return
		}
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
	http.Error(w, msg, http.StatusUnauthorized)
}
