package gateway_test

import (
	"net/url"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Tokens of the session-route tests: the operator, and a read+write
// token bound to agent:work:main (which may not see agent:main:main).
const (
	tokSessOperator = "op"
	tokSessBound    = "bound"
)

func sessionRoutesEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, envOptions{token: tokSessOperator,
		tokens: []config.TokenBinding{{Name: "bound", Token: tokSessBound, Scopes: []string{"read", "write"}, Session: "agent:work:main"}},
		cfg: func(c *config.Config) {
			c.Tools.Sessions.Visibility = "self"
		}})
	// A session with a run behind it, labelled.
	var chat struct {
		Run *domain.Run `json:"run"`
	}
	if code := e.do(t, "POST", "/api/sessions/main/chat?wait=10s", map[string]any{"message": "hello"}, &chat); code != 200 || chat.Run == nil || chat.Run.Status != domain.RunOK {
		t.Fatalf("chat = %d %+v", code, chat.Run)
	}
	if code := e.do(t, "POST", "/api/sessions/main/patch", map[string]any{"label": "home"}, nil); code != 200 {
		t.Fatalf("patch = %d", code)
	}
	return e
}

func TestHTTPResolve(t *testing.T) {
	e := sessionRoutesEnv(t)
	tests := []struct {
		name, token string
		query       url.Values
		wantCode    int
		wantKey     string
		wantMsg     string
	}{
		{"operator by key", tokSessOperator, url.Values{"key": {"main"}}, 200, "agent:main:main", ""},
		{"operator by label", tokSessOperator, url.Values{"label": {"home"}}, 200, "agent:main:main", ""},
		{"operator by label of another agent", tokSessOperator, url.Values{"label": {"home"}, "agentId": {"work"}}, 404, "", "No session found with label: home"},
		{"key and label", tokSessOperator, url.Values{"key": {"main"}, "label": {"home"}}, 400, "", "Provide either key, sessionId, or label (not multiple)"},
		{"nothing", tokSessOperator, url.Values{}, 400, "", "Either key, sessionId, or label is required"},
		{"unknown key", tokSessOperator, url.Values{"key": {"agent:main:nope"}}, 404, "", "No session found: agent:main:nope"},
		// A session the bound token may not see answers as an unknown one.
		{"bound token, hidden key", tokSessBound, url.Values{"key": {"agent:main:main"}}, 404, "", "No session found: agent:main:main"},
		{"bound token, unknown key", tokSessBound, url.Values{"key": {"agent:main:nope"}}, 404, "", "No session found: agent:main:nope"},
		{"bound token, hidden label", tokSessBound, url.Values{"label": {"home"}}, 404, "", "No session found with label: home"},
		{"bound token, unknown label", tokSessBound, url.Values{"label": {"elsewhere"}}, 404, "", "No session found with label: elsewhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct {
				Key string `json:"key"`
				apiError
			}
			code := e.doToken(t, tt.token, "GET", "/api/sessions/resolve?"+tt.query.Encode(), nil, &out)
			if code != tt.wantCode || out.Key != tt.wantKey || out.Error.Message != tt.wantMsg {
				t.Fatalf("resolve = %d key %q error %q; want %d %q %q", code, out.Key, out.Error.Message, tt.wantCode, tt.wantKey, tt.wantMsg)
			}
		})
	}
}

func TestHTTPGetSession(t *testing.T) {
	e := sessionRoutesEnv(t)
	var row api.SessionRow
	if code := e.doToken(t, tokSessOperator, "GET", "/api/sessions/main", nil, &row); code != 200 {
		t.Fatalf("get main = %d", code)
	}
	if row.Key != "agent:main:main" || row.Label != "home" || row.Model != "script" || row.SessionID == "" {
		t.Fatalf("row = %+v", row)
	}
	// The same row by sessionId.
	var byID api.SessionRow
	if code := e.doToken(t, tokSessOperator, "GET", "/api/sessions/"+row.SessionID, nil, &byID); code != 200 || byID.Key != row.Key {
		t.Fatalf("get by sessionId = %d %+v", code, byID)
	}
	var hidden, unknown apiError
	hc := e.doToken(t, tokSessBound, "GET", "/api/sessions/agent:main:main", nil, &hidden)
	uc := e.doToken(t, tokSessBound, "GET", "/api/sessions/agent:work:nope", nil, &unknown)
	if hc != 404 || uc != 404 || hidden.Error.Message != "No session found: agent:main:main" || unknown.Error.Message != "No session found: agent:work:nope" {
		t.Fatalf("hidden = %d %+v, unknown = %d %+v", hc, hidden, uc, unknown)
	}
}

func TestHTTPDeliverAndOutbox(t *testing.T) {
	e := sessionRoutesEnv(t)
	body := map[string]any{"to": "someone", "message": "hello out there", "sessionKey": "main", "idempotencyKey": "d1"}
	var first, again api.DeliverResult
	if code := e.doToken(t, tokSessOperator, "POST", "/api/send", body, &first); code != 200 {
		t.Fatalf("send = %d", code)
	}
	if first.Status != "queued" || first.MessageID == "" || first.MessageID == "d1" || first.SessionKey != "agent:main:main" || first.To != "someone" {
		t.Fatalf("send = %+v", first)
	}
	// A retry with the same key is the same message.
	if code := e.doToken(t, tokSessOperator, "POST", "/api/send", body, &again); code != 200 || again.MessageID != first.MessageID {
		t.Fatalf("retry = %d %+v, want message %s", code, again, first.MessageID)
	}
	var refused apiError
	if code := e.doToken(t, tokSessBound, "POST", "/api/send", body, &refused); code != 403 {
		t.Fatalf("bound token send = %d %+v", code, refused)
	}
	if code := e.doToken(t, tokSessOperator, "POST", "/api/send", map[string]any{"to": "x"}, &refused); code != 400 {
		t.Fatalf("send without message = %d %+v", code, refused)
	}

	var out struct {
		Items []domain.OutboxItem `json:"items"`
	}
	if code := e.doToken(t, tokSessOperator, "GET", "/api/outbox?session=agent:main:main&limit=10", nil, &out); code != 200 {
		t.Fatalf("outbox = %d", code)
	}
	found := false
	for _, it := range out.Items {
		if it.To == "someone" && it.Kind == domain.OutboxDelivery {
			found = true
		}
	}
	if !found {
		t.Fatalf("outbox lacks the delivery: %+v", out.Items)
	}
	if code := e.doToken(t, tokSessOperator, "GET", "/api/outbox?status=weird", nil, &refused); code != 400 {
		t.Fatalf("bad status = %d", code)
	}
	if code := e.doToken(t, tokSessBound, "GET", "/api/outbox", nil, &refused); code != 403 {
		t.Fatalf("bound token outbox = %d %+v", code, refused)
	}
}

func TestHTTPDefaults(t *testing.T) {
	e := sessionRoutesEnv(t)
	for _, tt := range []struct{ token, wantMain string }{
		{tokSessOperator, "agent:main:main"},
		{tokSessBound, "agent:work:main"},
	} {
		var d api.Defaults
		if code := e.doToken(t, tt.token, "GET", "/api/defaults", nil, &d); code != 200 {
			t.Fatalf("defaults = %d", code)
		}
		if d.MainSessionKey != tt.wantMain || d.DefaultAgentID != "main" || d.MainKey != "main" || d.Model != "script" || d.Scope != "per-sender" {
			t.Fatalf("defaults for %s = %+v", tt.token, d)
		}
	}
}

// sessions.list rows carry what the engine's rows hold: token counts by
// direction and the spawn depth, never derived by the gateway.
func TestSessionsListRowCounts(t *testing.T) {
	e := sessionRoutesEnv(t)
	var row api.SessionRow
	if code := e.doToken(t, tokSessOperator, "GET", "/api/sessions/main", nil, &row); code != 200 {
		t.Fatalf("get main = %d", code)
	}
	if row.InputTokens == 0 || row.OutputTokens == 0 {
		t.Fatalf("row without token counts: %+v", row)
	}
	w, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokSessOperator}})
	var list struct {
		Sessions []struct {
			Key          string `json:"key"`
			InputTokens  int64  `json:"inputTokens"`
			OutputTokens int64  `json:"outputTokens"`
		} `json:"sessions"`
	}
	w.ok("sessions.list", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].InputTokens != row.InputTokens || list.Sessions[0].OutputTokens != row.OutputTokens {
		t.Fatalf("sessions.list = %+v, want the row's counts %d/%d", list.Sessions, row.InputTokens, row.OutputTokens)
	}
}

// TestOpenClawHistoryRoute checks OpenClaw's `GET /sessions/{key}/history`
// (OpenClaw's gateway methods): the history of an existing session with paging by
// cursor, and 404 {ok:false, error:{type:"not_found"}} for a session that
// does not exist or that the token may not see; no token is 401.
func TestOpenClawHistoryRoute(t *testing.T) {
	e := sessionRoutesEnv(t)
	type page struct {
		SessionKey string `json:"sessionKey"`
		Messages   []struct {
			ID   string `json:"id"`
			Role string `json:"role"`
		} `json:"messages"`
		NextCursor string `json:"nextCursor"`
	}
	var first page
	if code := e.doToken(t, tokSessOperator, "GET", "/sessions/main/history?limit=1", nil, &first); code != 200 {
		t.Fatalf("history = %d", code)
	}
	if first.SessionKey != "agent:main:main" || len(first.Messages) != 1 || first.Messages[0].Role != "assistant" || first.NextCursor == "" {
		t.Fatalf("first page = %+v", first)
	}
	var second page
	if code := e.doToken(t, tokSessOperator, "GET", "/sessions/main/history?limit=1&cursor="+url.QueryEscape(first.NextCursor), nil, &second); code != 200 ||
		len(second.Messages) != 1 || second.Messages[0].Role != "user" || second.NextCursor != "" {
		t.Fatalf("second page = %d %+v", code, second)
	}
	for _, tc := range []struct{ token, key string }{{tokSessOperator, "agent:main:nope"}, {tokSessBound, "agent:main:main"}} {
		var body struct {
			OK    bool `json:"ok"`
			Error struct {
				Type string `json:"type"`
			} `json:"error"`
		}
		if code := e.doToken(t, tc.token, "GET", "/sessions/"+tc.key+"/history", nil, &body); code != 404 || body.OK || body.Error.Type != "not_found" {
			t.Errorf("%s as %s = %d %+v; want 404 type not_found", tc.key, tc.token, code, body)
		}
	}
	if code := e.doToken(t, "", "GET", "/sessions/main/history", nil, nil); code != 401 {
		t.Errorf("no token = %d, want 401", code)
	}
}
