package gateway

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// browserPolicy is the one Origin/Host/Content-Type policy of every HTTP
// surface (API, metrics, WebSocket upgrade, MCP, web UI), so a web page
// of another site cannot drive a tokenless loopback gateway:
//
//   - Host: on a loopback listener (the request arrived on a loopback
//     address) the Host header must name a loopback host (localhost,
//     127.0.0.1, [::1], any port) or the host of an allowed origin;
//     anything else is DNS rebinding and is refused with 403.
//   - Origin: requests without Origin and Sec-Fetch-Site (programs, curl)
//     pass; so do the browser's same-origin requests (the web UI), loopback
//     origins on a loopback listener, and gateway.allowedOrigins. Anything
//     else is refused with 403. The web UI's own pages (GET/HEAD outside
//     /api, /metrics, /mcp and the WebSocket upgrade) are exempt, so links
//     to the UI from other sites still open it.
//   - Content-Type: a POST, PUT, PATCH or DELETE with a body must say
//     application/json (415 otherwise): browsers can send text/plain and
//     form bodies to any site without asking.
type browserPolicy struct {
	origins map[string]bool // allowed origins, normalized
	hosts   map[string]bool // their hosts (host[:port]), lower case
}

func newBrowserPolicy(allowed []string) *browserPolicy {
	p := &browserPolicy{origins: map[string]bool{}, hosts: map[string]bool{}}
	for _, o := range allowed {
		if n, host, ok := normalizeOrigin(o); ok {
			p.origins[n] = true
			p.hosts[host] = true
		}
	}
	return p
}

// normalizeOrigin lower-cases scheme and host and drops a default port.
func normalizeOrigin(o string) (norm, host string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return scheme + "://" + host, host, true
}

// policyError is a refusal with its HTTP status.
type policyError struct {
	status int
	msg    string
}

func (e *policyError) Error() string { return e.msg }

// check applies the policy to r; nil means allowed.
func (p *browserPolicy) check(r *http.Request) *policyError {
	loopback := arrivedOnLoopback(r)
	if loopback && r.Host != "" && !isLoopbackHostPort(r.Host) && !p.hosts[strings.ToLower(r.Host)] {
		return &policyError{http.StatusForbidden, fmt.Sprintf("forbidden: Host %q is not a loopback name on this loopback listener "+
			"(refused against DNS rebinding; use localhost or 127.0.0.1, or add the origin to gateway.allowedOrigins)", clipHeader(r.Host))}
	}
	if !webPage(r) {
		if err := p.checkOrigin(r, loopback); err != nil {
			return err
		}
	}
	return checkContentType(r)
}

// checkOrigin applies the Origin/Sec-Fetch-Site rule.
func (p *browserPolicy) checkOrigin(r *http.Request, loopback bool) *policyError {
	origin, site := r.Header.Get("Origin"), strings.ToLower(r.Header.Get("Sec-Fetch-Site"))
	if origin == "" && site == "" {
		return nil // not a browser
	}
	if site == "same-origin" || site == "none" {
		return nil
	}
	if origin != "" && origin != "null" {
		norm, host, ok := normalizeOrigin(origin)
		switch {
		case !ok:
		case host == strings.ToLower(r.Host) && site == "":
			return nil // same origin, from a browser without Fetch metadata
		case p.origins[norm]:
			return nil
		case loopback && isLoopbackHostPort(host):
			return nil
		}
	}
	from := origin
	if from == "" {
		from = "a " + site + " page"
	}
	return &policyError{http.StatusForbidden, fmt.Sprintf("forbidden: cross-origin request from %s refused "+
		"(add the origin to gateway.allowedOrigins to allow it)", clipHeader(from))}
}

// corsOrigin is the Origin to name in Access-Control-Allow-Origin: an
// allowed origin other than the gateway's own ("" = none).
func (p *browserPolicy) corsOrigin(r *http.Request) string {
	origin := r.Header.Get("Origin")
	norm, host, ok := normalizeOrigin(origin)
	if !ok || host == strings.ToLower(r.Host) {
		return ""
	}
	if p.origins[norm] || (arrivedOnLoopback(r) && isLoopbackHostPort(host)) {
		return origin
	}
	return ""
}

// webPage reports whether r only reads the web UI (exempt from the Origin
// rule: a link from another site may open it).
func webPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return false
	}
	p := r.URL.Path
	return !(p == "/metrics" || p == "/mcp" || strings.HasPrefix(p, "/mcp/") || p == "/api" || strings.HasPrefix(p, "/api/"))
}

// checkContentType requires application/json on a state-changing request
// with a body. MCP keeps its lenient rule for a missing type (curl) since
// the MCP handler sets and checks it itself.
func checkContentType(r *http.Request) *policyError {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && (r.URL.Path == "/mcp" || strings.HasPrefix(r.URL.Path, "/mcp/")) {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return nil
	}
	got := "none"
	if ct != "" {
		got = clipHeader(ct)
	}
	return &policyError{http.StatusUnsupportedMediaType, fmt.Sprintf("unsupported media type: a request body must be sent with Content-Type: application/json (got %s)", got)}
}

// arrivedOnLoopback reports whether r came in on a loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	return isLoopbackHostPort(a.String())
}

// isLoopbackHostPort reports whether host[:port] names a loopback host.
func isLoopbackHostPort(hp string) bool {
	host := hp
	if h, _, err := net.SplitHostPort(hp); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.EqualFold(host, "localhost") || isLoopbackHost(host)
}

// clipHeader bounds a client-sent value quoted in an error message.
func clipHeader(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
