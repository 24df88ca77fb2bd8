package gateway_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
)

// rawDo sends one request with explicit headers (no token, no defaults)
// and returns the status, the response headers and the body.
func (e *env) rawDo(t testing.TB, method, path, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// runCount is the number of runs the gateway knows.
func (e *env) runCount(t testing.TB) int {
	t.Helper()
	var out struct {
		Runs []map[string]any `json:"runs"`
	}
	if st := e.do(t, "GET", "/api/runs?limit=1000", nil, &out); st != 200 {
		t.Fatalf("list runs: %d", st)
	}
	return len(out.Runs)
}

// TestCrossSiteRequestsRefused: a page of another site cannot drive a
// tokenless loopback gateway, whatever the route; nothing runs.
func TestCrossSiteRequestsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	evil := map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"}
	fetch := map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
	tests := []struct {
		name, method, path, body string
		hdr                      map[string]string
		want                     int
		wantMsg                  string
	}{
		{"chat text/plain from evil origin", "POST", "/api/sessions/main/chat", `{"message":"hi"}`, evil, 403, "cross-origin request from https://evil.example refused"},
		{"send", "POST", "/api/sessions/main/send", `{"message":"hi"}`, evil, 403, "gateway.allowedOrigins"},
		{"spawn", "POST", "/api/spawn", `{"task":"x"}`, evil, 403, "cross-origin"},
		{"reset", "POST", "/api/sessions/main/reset", "", evil, 403, "cross-origin"},
		{"patch", "POST", "/api/sessions/main/patch", `{"label":"x"}`, evil, 403, "cross-origin"},
		{"tools", "POST", "/api/tools/sessions_send", `{"sessionKey":"main","message":"x"}`, evil, 403, "cross-origin"},
		{"cross-site fetch metadata, JSON", "POST", "/api/sessions/main/chat", `{"message":"hi"}`, fetch, 403, "cross-site page"},
		{"cross-site read of the API", "GET", "/api/sessions", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "cross-site"},
		{"cross-site metrics", "GET", "/metrics", "", map[string]string{"Origin": "https://evil.example"}, 403, "cross-origin"},
		{"null origin", "POST", "/api/sessions/main/chat", `{"message":"hi"}`, map[string]string{"Origin": "null", "Content-Type": "application/json"}, 403, "from null"},
		{"mcp", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json"}, 403, "cross-origin"},
		{"text/plain without origin", "POST", "/api/sessions/main/chat", `{"message":"hi"}`, map[string]string{"Content-Type": "text/plain"}, 415, "Content-Type: application/json (got text/plain)"},
		{"form body", "POST", "/api/spawn", `task=x`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"no content type", "POST", "/api/sessions/main/send", `{"message":"hi"}`, nil, 415, "(got none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, hdr, body := e.rawDo(t, tt.method, tt.path, tt.body, tt.hdr)
			if st != tt.want || !strings.Contains(body, tt.wantMsg) {
				t.Fatalf("status %d body %s; want %d with %q", st, body, tt.want, tt.wantMsg)
			}
			if id := hdr.Get("X-Request-Id"); id == "" || !strings.Contains(body, id) {
				t.Errorf("X-Request-Id %q not in the body %s", id, body)
			}
		})
	}
	if n := e.runCount(t); n != 0 {
		t.Fatalf("%d runs exist after refused requests", n)
	}
}

// TestDNSRebindingRefused: on a loopback listener a Host that is not a
// loopback name is refused on every surface, the WebSocket included.
func TestDNSRebindingRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	port := e.url[strings.LastIndex(e.url, ":")+1:]
	evilHost := "evil.example:" + port
	for _, path := range []string{"/api/sessions", "/metrics", "/", "/healthz", "/mcp"} {
		st, _, body := e.rawDo(t, "GET", path, "", map[string]string{"Host": evilHost, "Origin": "http://" + evilHost})
		if st != 403 || !strings.Contains(body, "DNS rebinding") {
			t.Errorf("GET %s with Host %s: %d %s", path, evilHost, st, body)
		}
	}
	st, _, body := e.rawDo(t, "POST", "/api/sessions/main/chat", `{"message":"hi"}`, map[string]string{"Host": evilHost, "Content-Type": "application/json"})
	if st != 403 {
		t.Errorf("POST chat with Host %s: %d %s", evilHost, st, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, e.ws, &websocket.DialOptions{HTTPClient: e.hc, Host: evilHost,
		HTTPHeader: http.Header{"Origin": {"http://" + evilHost}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("WebSocket with Host %s: err %v resp %v", evilHost, err, resp)
	}
	if n := e.runCount(t); n != 0 {
		t.Fatalf("%d runs exist after refused requests", n)
	}
	// Loopback names work, with or without the port.
	for _, h := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST", "127.0.0.2:" + port} {
		if st, _, body := e.rawDo(t, "GET", "/api/sessions", "", map[string]string{"Host": h}); st != 200 {
			t.Errorf("Host %s: %d %s", h, st, body)
		}
	}
}

// TestSameOriginAndAllowedOrigins: the web UI's own requests, loopback
// origins and gateway.allowedOrigins still work (with CORS answers for the
// allowed cross-origin caller); a link from another site opens the UI.
func TestSameOriginAndAllowedOrigins(t *testing.T) {
	e := newEnv(t, envOptions{cfg: func(c *config.Config) {
		c.Gateway.AllowedOrigins = []string{"https://ui.example.com"}
	}})
	self := map[string]string{"Origin": e.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
	if st, _, body := e.rawDo(t, "POST", "/api/sessions/main/chat?wait=10s", `{"message":"hello"}`, self); st != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("same-origin chat: %d %s", st, body)
	}
	legacy := map[string]string{"Origin": e.url, "Content-Type": "application/json"} // no Fetch metadata
	if st, _, body := e.rawDo(t, "GET", "/api/sessions", "", legacy); st != 200 {
		t.Fatalf("same-origin without Sec-Fetch-Site: %d %s", st, body)
	}
	if st, _, body := e.rawDo(t, "GET", "/", "", map[string]string{"Sec-Fetch-Site": "cross-site"}); st != 200 {
		t.Fatalf("navigation to the UI from another site: %d %s", st, body)
	}
	dev := map[string]string{"Origin": "http://localhost:5173", "Sec-Fetch-Site": "same-site", "Content-Type": "application/json"}
	st, hdr, body := e.rawDo(t, "GET", "/api/sessions", "", dev)
	if st != 200 || hdr.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Fatalf("loopback origin: %d %v %s", st, hdr, body)
	}
	ui := map[string]string{"Origin": "https://ui.example.com", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
	st, hdr, body = e.rawDo(t, "POST", "/api/sessions/main/chat", `{"message":"from the ui"}`, ui)
	if st != 200 || hdr.Get("Access-Control-Allow-Origin") != "https://ui.example.com" || hdr.Get("Access-Control-Expose-Headers") != "X-Request-Id" {
		t.Fatalf("allowed origin: %d %v %s", st, hdr, body)
	}
	st, hdr, _ = e.rawDo(t, "OPTIONS", "/api/sessions/main/chat", "", map[string]string{"Origin": "https://ui.example.com",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
	if st != 204 || !strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "Content-Type") {
		t.Fatalf("preflight: %d %v", st, hdr)
	}
	// The allowed origin's host is accepted as Host (a reverse proxy).
	if st, _, body := e.rawDo(t, "GET", "/api/sessions", "", map[string]string{"Host": "ui.example.com"}); st != 200 {
		t.Fatalf("allowed origin's host: %d %s", st, body)
	}
	// The WebSocket from the web UI (same origin) and from the allowed origin.
	for _, origin := range []string{e.url, "https://ui.example.com"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, _, err := websocket.Dial(ctx, e.ws, &websocket.DialOptions{HTTPClient: e.hc, HTTPHeader: http.Header{"Origin": {origin}}})
		cancel()
		if err != nil {
			t.Fatalf("WebSocket from %s: %v", origin, err)
		}
		_ = c.CloseNow()
	}
	// The same WebSocket from an origin that is not allowed is refused.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, e.ws, &websocket.DialOptions{HTTPClient: e.hc, HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("WebSocket from evil origin: err %v resp %v", err, resp)
	}
}
