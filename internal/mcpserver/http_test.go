package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// tokenResolver maps bearer tokens to principals, as the gateway does with
// its token and gateway.auth.tokens[] (scopes, bound session).
func tokenResolver(tokens map[string]api.Principal) func(*http.Request) (api.Principal, error) {
	return func(r *http.Request) (api.Principal, error) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tok == "banned" {
			return api.Principal{}, domain.Errorf(domain.CodeForbidden, "token revoked")
		}
		p, known := tokens[tok]
		if !ok || !known {
			return api.Principal{}, errors.New("unknown token")
		}
		return p, nil
	}
}

// boundTo is the principal of a token bound to a session with read and
// write (the default of a bound token).
func boundTo(name, session string) api.Principal {
	return api.Principal{Name: name, Scopes: api.ScopeRead | api.ScopeWrite, Session: session}
}

func serveHTTP(t testing.TB, s *Server, tokens map[string]api.Principal) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(tokenResolver(tokens)))
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return ts
}

func TestHTTPRequesterBinding(t *testing.T) {
	e := newEngine(t, "tree")
	chat(t, e, "main", "hi from main")
	chat(t, e, "agent:main:alice", "hi from alice")
	ts := serveHTTP(t, New(e, Options{}), map[string]api.Principal{
		"tok-main": api.Operator(), "tok-alice": boundTo("alice", "agent:main:alice")})

	asMain := connectHTTP(t, ts.URL+"/mcp", "tok-main")
	asAlice := connectHTTP(t, ts.URL+"/mcp", "tok-alice")

	// The main token is the operator: it sees every session.
	_, p := call(t, asMain, api.ToolSessionsList, nil)
	if got := keys(t, p); len(got) != 2 {
		t.Errorf("main token sees %v, want both sessions", got)
	}
	_, p = call(t, asAlice, api.ToolSessionsList, nil)
	if got := keys(t, p); len(got) != 1 || got[0] != "agent:main:alice" {
		t.Errorf("alice token sees %v, want [agent:main:alice]", got)
	}

	// Each requester reads its own transcript and not the other's.
	res, p := call(t, asAlice, api.ToolSessionsHistory, map[string]any{"sessionKey": "current"})
	if res.IsError || len(p["messages"].([]any)) != 2 {
		t.Errorf("alice reads her history: isError=%v payload=%v", res.IsError, p)
	}
	res, p = call(t, asAlice, api.ToolSessionsHistory, map[string]any{"sessionKey": "agent:main:main"})
	if !res.IsError || p["status"] != "forbidden" {
		t.Errorf("alice reads main's history: isError=%v payload=%v, want forbidden", res.IsError, p)
	}

	// A send over HTTP waits for and returns the reply.
	res, p = call(t, asMain, api.ToolSessionsSend, map[string]any{"sessionKey": "main", "message": "over http"})
	if res.IsError || p["reply"] != "echo: over http" {
		t.Errorf("send over HTTP: isError=%v payload=%v", res.IsError, p)
	}
}

// post sends one raw request to the endpoint.
func post(t *testing.T, method, url, token string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestHTTPPlainRequests(t *testing.T) {
	e := newEngine(t, "tree")
	chat(t, e, "main", "hello")
	ts := serveHTTP(t, New(e, Options{}), map[string]api.Principal{"tok": api.Operator()})
	url := ts.URL + "/mcp"
	callList := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`
	both := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

	for _, tc := range []struct {
		name       string
		method     string
		token      string
		header     map[string]string
		body       string
		wantStatus int
		wantBody   string
	}{
		{"curl-style POST without Accept or Content-Type", "POST", "tok", nil, callList, 200, `"structuredContent":{"count":1`},
		{"POST accepting only JSON", "POST", "tok", map[string]string{"Accept": "application/json"}, callList, 200, `"count":1`},
		{"POST accepting both gets JSON", "POST", "tok", both, callList, 200, `"id":7`},
		{"tools/list without initialize", "POST", "tok", both, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, `"sessions_spawn"`},
		{"bad arguments are a tool error", "POST", "tok", both,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{"limit":"x"}}}`, 200, `"isError":true`},
		{"unknown token", "POST", "nope", both, callList, 401, "unauthorized"},
		{"forbidden token", "POST", "banned", both, callList, 403, "token revoked"},
		{"GET is not served", "GET", "tok", map[string]string{"Accept": "text/event-stream"}, "", 405, ""},
		{"wrong content type", "POST", "tok", map[string]string{"Content-Type": "text/plain"}, callList, 415, ""},
		{"cross-origin browser POST", "POST", "tok", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, callList, 403, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, tc.method, url, tc.token, tc.header, tc.body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.wantStatus, body)
			}
			if !strings.Contains(body, tc.wantBody) {
				t.Fatalf("body %s, want it to contain %s", body, tc.wantBody)
			}
			if tc.wantStatus == 200 {
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type %q, want application/json", ct)
				}
				if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
					t.Errorf("stateless server set Mcp-Session-Id %q", sid)
				}
			}
			if tc.wantStatus == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
		})
	}
}

func TestHTTPClose(t *testing.T) {
	caller := blockingCaller{started: make(chan struct{})}
	s := New(caller, Options{})
	ts := httptest.NewServer(s.HTTPHandler(nil))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`

	type reply struct {
		status int
		body   string
	}
	got := make(chan reply, 1)
	go func() {
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(body))
		if err != nil {
			got <- reply{body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- reply{resp.StatusCode, string(b)}
	}()
	select {
	case <-caller.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool call never reached the caller")
	}
	// Close cancels the call in flight and waits for it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.status != 200 || !strings.Contains(r.body, `"isError":true`) {
		t.Fatalf("in-flight call after Close: %d %s, want an isError result", r.status, r.body)
	}

	// Later calls are refused as tool errors.
	resp, b := post(t, "POST", ts.URL, "", nil, body)
	var m struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
	}
	if !m.Result.IsError || !strings.Contains(string(m.Result.StructuredContent), "shutting down") {
		t.Fatalf("call after Close: %s, want an isError result saying the server is shutting down", b)
	}
}
