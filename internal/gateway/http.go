package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Headers the gateway sets on requests it passes to the MCP handler, so it
// knows who is calling without parsing tokens itself. Client-sent values
// are removed first.
const (
	HeaderSession = "X-Switchboard-Session" // the session a token is bound to
	HeaderScopes  = "X-Switchboard-Scopes"  // granted scopes, comma-separated
	// HeaderAs names the requester session of POST /api/tools/{name}.
	HeaderAs = "X-Switchboard-As"
)

// routes builds the server's HTTP handler. Each API route names the api
// operation it performs; its scope comes from api.RuleFor, and the
// engine's gate decides the rest. Each route's body limit is beside it.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routeTable() {
		mux.Handle(rt.pattern, s.limited(rt))
	}
	return s.outerware(mux)
}

// routeTable lists every HTTP route with its request body limit
// (bodylimit.go).
func (s *Server) routeTable() []route {
	mcp := s.withAuth(s.serveMCP)
	a2aRoutes := http.HandlerFunc(s.serveA2A)
	spawn := s.spawnBody()
	return []route{
		{pattern: "GET /healthz", limit: noBody, h: http.HandlerFunc(s.healthz)},
		{pattern: "GET /metrics", limit: noBody, h: s.withAuth(func(w http.ResponseWriter, r *http.Request, g grant) {
			if !g.has(ScopeRead) {
				writeError(w, api.MissingScope(api.ScopeRead))
				return
			}
			s.metrics.handler().ServeHTTP(w, r)
		})},
		{pattern: "/mcp", limit: spawn, h: mcp},
		{pattern: "/mcp/", limit: spawn, h: mcp},
		{pattern: "/.well-known/agent-card.json", limit: noBody, h: a2aRoutes, jsonrpc: true},
		{pattern: "/a2a/", limit: a2a.MaxRequestBytes, h: a2aRoutes, jsonrpc: true},

		{pattern: "GET /api/sessions", limit: noBody, h: s.api(api.OpSessionsList, s.apiListSessions)},
		{pattern: "GET /api/sessions/{key}/history", limit: noBody, h: s.api(api.OpSessionsHistory, s.apiHistory)},
		// OpenClaw's own history route (OpenClaw's gateway methods), for its clients.
		{pattern: "GET /sessions/{key}/history", limit: noBody, h: s.api(api.OpSessionsHistory, s.openclawHistory)},
		{pattern: "POST /api/sessions/{key}/send", limit: textBody, h: s.api(api.OpSessionsSend, s.apiSend)},
		{pattern: "POST /api/sessions/{key}/chat", limit: s.sendBody(), h: s.api(api.OpChat, s.apiChat)},
		{pattern: "POST /api/sessions/{key}/patch", limit: smallBody, h: s.api(api.OpSessionsPatch, s.apiPatch)},
		{pattern: "POST /api/sessions/{key}/reset", limit: ignoredBody, unread: true, h: s.api(api.OpSessionsReset, s.apiReset)},
		{pattern: "DELETE /api/sessions/{key}", limit: ignoredBody, unread: true, h: s.api(api.OpSessionsDel, s.apiDelete)},
		{pattern: "GET /api/sessions/resolve", limit: noBody, h: s.api(api.OpSessionsResolve, s.apiResolve)},
		{pattern: "GET /api/sessions/{key}", limit: noBody, h: s.api(api.OpSessionsGet, s.apiGetSession)},
		{pattern: "POST /api/send", limit: s.sendBody(), h: s.api(api.OpDeliver, s.apiDeliver)},
		{pattern: "GET /api/defaults", limit: noBody, h: s.api(api.OpDefaults, s.apiDefaults)},
		{pattern: "GET /api/outbox", limit: noBody, h: s.api(api.OpOutboxList, s.apiOutbox)},
		{pattern: "POST /api/spawn", limit: spawn, h: s.api(api.OpSessionsSpawn, s.apiSpawn)},
		{pattern: "GET /api/runs", limit: noBody, h: s.api(api.OpRunsList, s.apiListRuns)},
		{pattern: "GET /api/runs/{id}", limit: noBody, h: s.api(api.OpRunsGet, s.apiRun)},
		{pattern: "POST /api/runs/{id}/cancel", limit: ignoredBody, unread: true, h: s.api(api.OpRunsCancel, s.apiCancelRun)},
		{pattern: "GET /api/agents", limit: noBody, h: s.api(api.OpAgentsList, s.apiAgents)},
		{pattern: "GET /api/search", limit: noBody, h: s.api(api.OpSessionsSearch, s.apiSearch)},
		{pattern: "GET /api/usage", limit: noBody, h: s.api(api.OpUsageReport, s.apiUsage)},
		{pattern: "GET /api/loops", limit: noBody, h: s.api(api.OpLoopsList, s.apiLoops)},
		{pattern: "POST /api/loops/resume", limit: smallBody, h: s.api(api.OpLoopsResume, s.apiLoopsResume)},
		{pattern: "GET /api/audit", limit: noBody, h: s.api(api.OpAuditList, s.apiAudit)},
		{pattern: "GET /api/audit/chain", limit: noBody, h: s.api(api.OpAuditChain, s.apiAuditChain)},
		{pattern: "GET /api/approvals", limit: noBody, h: s.api(api.OpApprovalList, s.apiApprovals)},
		{pattern: "GET /api/approvals/history", limit: noBody, h: s.api(api.OpApprovalHistory, s.apiApprovalHistory)},
		{pattern: "GET /api/approvals/{id}", limit: noBody, h: s.api(api.OpApprovalGet, s.apiApproval)},
		{pattern: "POST /api/approvals/{id}/resolve", limit: smallBody, h: s.api(api.OpApprovalResolve, s.apiApprovalResolve)},
		{pattern: "GET /api/channels/status", limit: noBody, h: s.api(api.OpChannelsStatus, s.apiChannelsStatus)},
		{pattern: "POST /api/tools/{name}", limit: spawn, h: s.api("", s.apiTool)},
		{pattern: "/api/", limit: noBody, h: s.api("", func(r *http.Request, _ grant) (any, error) {
			return nil, domain.Errorf(domain.CodeNotFound, "no API route %s %s", r.Method, r.URL.Path)
		})},
		// The WebSocket upgrade and the web UI.
		{pattern: "/", limit: noBody, h: http.HandlerFunc(s.root)},
	}
}

// root serves the WebSocket endpoint (Upgrade requests on /), OpenClaw's
// Control UI under its base path when one is configured, and the web UI.
func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	if r.URL.Path == "/" && upgrade {
		s.serveWS(w, r)
		return
	}
	if ui := s.opts.ControlUI; ui != nil && ui.Owns(r.URL.Path) {
		if upgrade && ui.IsSocket(r.URL.Path) {
			s.serveWS(w, r)
			return
		}
		ui.ServeHTTP(w, r)
		return
	}
	if s.opts.Web != nil {
		s.opts.Web.ServeHTTP(w, r)
		return
	}
	if r.URL.Path != "/" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, placeholderPage)
}

const placeholderPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>switchboard gateway</title></head>
<body><h1>switchboard gateway</h1>
<p>The web UI is not mounted in this build. The gateway speaks the WebSocket protocol on <code>/</code>,
a JSON API under <code>/api/</code>, MCP on <code>/mcp</code>, and serves <code>/healthz</code> and <code>/metrics</code>.</p>
</body></html>
`

// healthz answers 200 while connections are accepted.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if s.isClosing() {
		writeError(w, domain.Errorf(domain.CodeUnavailable, "gateway is shutting down"))
		return
	}
	body := map[string]any{"ok": true}
	if ch := s.channelHealth(); ch != nil {
		body["channels"] = ch
	}
	writeJSON(w, http.StatusOK, body)
}

// serveMCP passes the request to the MCP handler with the caller's
// principal in the request context (PrincipalOf) and, for handlers that
// read headers, its bound session and scopes in trusted headers. MCP
// clients of an unbound credential act as the default agent's main
// session; each tool call is gated by the engine with that principal.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request, g grant) {
	if s.opts.MCP == nil {
		writeError(w, domain.Errorf(domain.CodeNotFound, "MCP is not enabled on this gateway"))
		return
	}
	// gateway.limits.maxPayload bounds /mcp as it bounds every HTTP body
	// (the MCP handler's own limit is a fallback, set to the same value by
	// the command that mounts it).
	if r.ContentLength > s.opts.MaxPayload {
		writeError(w, &http.MaxBytesError{Limit: s.opts.MaxPayload})
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxPayload)
	}
	r.Header.Del(HeaderSession)
	r.Header.Del(HeaderScopes)
	// The gateway's browser policy (outerware) has admitted the request,
	// allowed origins included; the MCP handler's own cross-origin check
	// knows none of them, so it gets a request that is no longer
	// cross-origin. (Its DNS-rebinding Host check still applies.)
	r.Header.Del("Origin")
	r.Header.Del("Sec-Fetch-Site")
	if g.session != "" {
		r.Header.Set(HeaderSession, g.session)
	}
	r.Header.Set(HeaderScopes, strings.Join(g.scopes, ","))
	p := g.toolPrincipal("")
	s.opts.MCP.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
}

// serveA2A passes A2A requests to the A2A handler: agent cards without a
// credential (they say how to authenticate), JSON-RPC calls with the
// caller's principal in the request context and a context that Shutdown
// ends (streams included).
func (s *Server) serveA2A(w http.ResponseWriter, r *http.Request) {
	if s.opts.A2A == nil {
		writeError(w, domain.Errorf(domain.CodeNotFound, "A2A is not enabled on this gateway"))
		return
	}
	if a2a.IsCardRequest(r) {
		// A card that is not public is served to a valid token only; a
		// missing or wrong one is no refusal here (the card answers as
		// an unknown agent).
		if g, ok := s.auth.check(bearer(r.Header.Get("Authorization"))); ok {
			r = r.WithContext(context.WithValue(r.Context(), principalKey{}, g.principal("")))
		}
		s.opts.A2A.ServeHTTP(w, r)
		return
	}
	// The credential is checked here, but a refusal is the A2A handler's
	// to write (401 with a JSON-RPC error body, which A2A clients parse):
	// without a valid token the request carries no principal.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.base, cancel)
	defer stop()
	token := bearer(r.Header.Get("Authorization"))
	if g, ok := s.auth.check(token); ok {
		recordPrincipal(w, g.name)
		if ex := s.allow(g); ex != nil {
			writeRateLimited(w, ex)
			return
		}
		var release func()
		ctx, release = s.held.hold(ctx, holdCred(token, nil, g))
		defer release()
		ctx = context.WithValue(ctx, principalKey{}, g.principal(""))
	}
	s.opts.A2A.ServeHTTP(w, r.WithContext(ctx))
}

// withAuth checks the bearer token (when one is configured).
func (s *Server) withAuth(h func(http.ResponseWriter, *http.Request, grant)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := bearer(r.Header.Get("Authorization"))
		g, ok := s.auth.check(token)
		if ok {
			recordPrincipal(w, g.name)
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			msg := "unauthorized: gateway token mismatch"
			if token == "" {
				msg = "unauthorized: send Authorization: Bearer <gateway token>"
			}
			writeJSON(w, http.StatusUnauthorized, errorBody("unauthorized", msg, requestIDOf(w)))
			return
		}
		if ex := s.allow(g); ex != nil {
			writeRateLimited(w, ex)
			return
		}
		ctx, release := s.held.hold(r.Context(), holdCred(token, nil, g))
		defer release()
		s.recordTokenUse(ctx, g, httpSurface(r), r.Method+" "+r.URL.Path)
		h(w, r.WithContext(ctx), g)
	})
}

// apiFunc is one JSON API endpoint.
type apiFunc func(r *http.Request, g grant) (any, error)

// api wraps an endpoint: auth, the scope op needs (api.Authorize, the
// rule the engine's gate applies again; "" when the operation depends on
// the request), a request context that Shutdown ends, and JSON encoding
// of the result or error.
func (s *Server) api(op api.Op, fn apiFunc) http.Handler {
	return s.withAuth(func(w http.ResponseWriter, r *http.Request, g grant) {
		if op != "" {
			if err := s.authorize(r.Context(), g.principal(""), op, httpSurface(r)); err != nil {
				writeError(w, err)
				return
			}
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(s.base, cancel)
		defer stop()
		v, err := fn(r.WithContext(ctx), g)
		if err != nil {
			if errors.Is(context.Cause(ctx), errRevoked) {
				err = errRevoked
			}
			// A 5xx is logged with its cause by outerware.
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// httpStatus maps an error code to an HTTP status. It is the one place
// this mapping lives.
func httpStatus(code string) int {
	switch code {
	case domain.CodeInvalid:
		return http.StatusBadRequest
	case domain.CodeForbidden:
		return http.StatusForbidden
	case domain.CodeNotFound:
		return http.StatusNotFound
	case domain.CodeConflict:
		return http.StatusConflict
	case domain.CodeUnavailable:
		return http.StatusServiceUnavailable
	case domain.CodeTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// errorBody is {ok:false, error:{code, message, requestId}}.
func errorBody(code, msg, requestID string) map[string]any {
	// type repeats code in OpenClaw's spelling ({ok:false, error:{type}}),
	// so its HTTP clients read our errors too.
	e := map[string]string{"code": code, "type": code, "message": msg}
	if requestID != "" {
		e["requestId"] = requestID
	}
	return map[string]any{"ok": false, "error": e}
}

// writeError writes {ok:false, error:{code, message, requestId}} with the
// status of the error's code, and records the error as the answer's
// cause (a 5xx is logged with it).
func writeError(w http.ResponseWriter, err error) {
	recordCause(w, err)
	code, msg := domain.ErrorCode(err), domain.ErrorMessage(err)
	status := 0
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, context.Canceled):
		code, msg = domain.CodeUnavailable, "request cancelled"
	case errors.As(err, &mbe):
		code, msg = domain.CodeInvalid, bodyTooLarge(mbe.Limit)
		status = http.StatusRequestEntityTooLarge
	case errors.Is(err, errBodyTimeout):
		code, msg = domain.CodeInvalid, "request body not received in time"
		status = http.StatusRequestTimeout
	case errors.Is(err, io.ErrUnexpectedEOF):
		code, msg = domain.CodeInvalid, "request body ended early"
	}
	if status == 0 {
		status = httpStatus(code)
	}
	writeJSON(w, status, errorBody(code, msg, requestIDOf(w)))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		recordCause(w, fmt.Errorf("encoding the answer: %w", err))
		b, _ = json.Marshal(errorBody(domain.CodeInternal, "result is not JSON", requestIDOf(w)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
