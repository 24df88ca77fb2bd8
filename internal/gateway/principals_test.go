package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/gateway"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
)

// The principals of these tests: the operator (main token), a read-only
// token, a read+write token, a token bound to agent:main:claude (default
// scopes: read+write) and a bound token that also holds admin.
const (
	tokOperator   = "op-token"
	tokRead       = "ro-token"
	tokWrite      = "rw-token"
	tokBound      = "bound-token"
	tokBoundAdmin = "bound-admin-token"
	boundSession  = "agent:main:claude"
)

// principalEnv is a gateway with every kind of principal and the MCP
// handler mounted as the switchboard gateway command mounts it.
func principalEnv(t *testing.T, rules ...config.ScriptRule) *env {
	t.Helper()
	var mcp *mcpserver.Server
	e := newEnv(t, envOptions{token: tokOperator, rules: rules, tokens: []config.TokenBinding{
		{Name: "reader", Token: tokRead, Scopes: []string{"read"}},
		{Name: "writer", Token: tokWrite, Scopes: []string{"read", "write"}},
		{Name: "claude", Token: tokBound, Session: boundSession},
		{Name: "claude-admin", Token: tokBoundAdmin, Session: boundSession, Scopes: []string{"admin"}},
	}, cfg: func(c *config.Config) {
		c.Agents.Defaults.Subagents.AllowAgents = []string{"work"}
	}, opts: func(o *gateway.Options) {
		mcp = mcpserver.New(o.Engine, mcpserver.Options{Version: "test"})
		o.MCP = mcp.HTTPHandler(func(r *http.Request) (api.Principal, error) {
			p, ok := gateway.PrincipalOf(r)
			if !ok {
				return api.Principal{}, domain.Errorf(domain.CodeForbidden, "no principal")
			}
			return p, nil
		})
	}})
	t.Cleanup(func() { _ = mcp.Close(t.Context()) })
	return e
}

// chatDone posts a chat message as the operator and waits for its run.
func (e *env) chatDone(t *testing.T, key, msg string) domain.Run {
	t.Helper()
	var out gateway.ChatResponse
	if code := e.doToken(t, tokOperator, "POST", "/api/sessions/"+key+"/chat?wait=10s", map[string]any{"message": msg}, &out); code != 200 || out.Run == nil || out.Run.Status != domain.RunOK {
		t.Fatalf("chat %s = %d %+v", key, code, out)
	}
	return *out.Run
}

// TestPrincipalsHTTP is a table of HTTP calls by each principal: the
// scope rules, the token binding, limits and validation.
func TestPrincipalsHTTP(t *testing.T) {
	e := principalEnv(t)
	workRun := e.chatDone(t, "agent:work:main", "work secret")
	e.chatDone(t, boundSession, "claude hello")

	tests := []struct {
		name, token, method, path string
		body                      any
		want                      int
		contains                  string // in the body
		lacks                     string // not in the body
	}{
		{"operator lists runs of every session", tokOperator, "GET", "/api/runs", nil, 200, workRun.ID, ""},
		{"bound token lists only runs it may see", tokBound, "GET", "/api/runs", nil, 200, boundSession, workRun.ID},
		{"bound token cannot read another session's run", tokBound, "GET", "/api/runs/" + workRun.ID, nil, 404, "run not found", ""},
		{"bound token cannot chat into another session", tokBound, "POST", "/api/sessions/agent:work:main/chat", map[string]any{"message": "hi"}, 403, "", ""},
		{"bound token chats into its own session", tokBound, "POST", "/api/sessions/" + boundSession + "/chat", map[string]any{"message": "hi"}, 200, boundSession, ""},
		{"a forbidden send names no run", tokBound, "POST", "/api/sessions/agent:work:main/send", map[string]any{"message": "hi", "timeoutSeconds": 0}, 200, "forbidden", "runId"},
		{"bound token has no admin by default", tokBound, "POST", "/api/sessions/" + boundSession + "/patch", map[string]any{"label": "x"}, 403, "missing scope: operator.admin", ""},
		{"bound admin cannot patch another session", tokBoundAdmin, "POST", "/api/sessions/agent:work:main/patch", map[string]any{"label": "x"}, 403, "", ""},
		{"bound admin patches its own session", tokBoundAdmin, "POST", "/api/sessions/" + boundSession + "/patch", map[string]any{"label": "mine"}, 200, "mine", ""},
		{"bound admin cannot delete another session", tokBoundAdmin, "DELETE", "/api/sessions/agent:work:main", nil, 403, "", ""},
		{"bound token cannot act as another requester", tokBound, "GET", "/api/sessions?as=agent:work:main", nil, 403, "not allowed", ""},
		{"bound token lists only its sessions", tokBound, "GET", "/api/sessions", nil, 200, boundSession, "agent:work:main"},
		{"read token reads", tokRead, "GET", "/api/sessions", nil, 200, "agent:work:main", ""},
		{"read token cannot chat", tokRead, "POST", "/api/sessions/main/chat", map[string]any{"message": "hi"}, 403, "missing scope: operator.write", ""},
		{"read token cannot cancel", tokRead, "POST", "/api/runs/" + workRun.ID + "/cancel", nil, 403, "missing scope: operator.write", ""},
		{"write token chats", tokWrite, "POST", "/api/sessions/main/chat", map[string]any{"message": "hi"}, 200, "", ""},
		{"write token cannot patch", tokWrite, "POST", "/api/sessions/main/patch", map[string]any{"label": "x"}, 403, "missing scope: operator.admin", ""},
		{"write token cannot /reset in chat", tokWrite, "POST", "/api/sessions/main/chat", map[string]any{"message": "/reset"}, 403, "missing scope: operator.admin", ""},
		{"unknown kind is refused by name", tokOperator, "GET", "/api/sessions?kinds=main,bogus", nil, 400, "unknown kind", ""},
		{"unknown tool is invalid", tokOperator, "POST", "/api/tools/nope", "{}", 400, "tool not available: nope", ""},
		{"list limit is clamped", tokOperator, "GET", "/api/sessions?limit=100000", nil, 200, "", ""},
		{"negative list limit is refused", tokOperator, "GET", "/api/sessions?limit=-1", nil, 400, "limit must be at least 1", ""},
		{"a week-long chat timeout is accepted", tokOperator, "POST", "/api/sessions/main/chat", map[string]any{"message": "long", "timeoutSeconds": 172800}, 200, "", ""},
		{"a chat timeout past a week is refused", tokOperator, "POST", "/api/sessions/main/chat", map[string]any{"message": "long", "timeoutSeconds": 604801}, 400, "at most 604800", ""},
		{"native answers show canonical keys", tokOperator, "GET", "/api/sessions/main/history", nil, 200, `"sessionKey":"agent:main:main"`, ""},
		{"session rows show canonical keys", tokOperator, "GET", "/api/sessions", nil, 200, `"key":"agent:main:main"`, `"key":"main"`},
		{"tool results keep main", tokOperator, "POST", "/api/tools/sessions_list", "{}", 200, `"key":"main"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			code := e.doToken(t, tt.token, tt.method, tt.path, tt.body, &raw)
			if code != tt.want {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, code, raw, tt.want)
			}
			if tt.contains != "" && !strings.Contains(string(raw), tt.contains) {
				t.Fatalf("body %s lacks %q", raw, tt.contains)
			}
			if tt.lacks != "" && strings.Contains(string(raw), tt.lacks) {
				t.Fatalf("body %s has %q", raw, tt.lacks)
			}
		})
	}
}

// TestPrincipalsWS is a table of WS calls by each principal.
func TestPrincipalsWS(t *testing.T) {
	e := principalEnv(t)
	e.chatDone(t, "agent:work:main", "work secret")
	e.chatDone(t, boundSession, "claude hello")

	tests := []struct {
		name, token, method string
		params              map[string]any
		wantErr             string // "" = allowed
		contains            string
	}{
		{"bound token reads its history", tokBound, "chat.history", map[string]any{"sessionKey": boundSession}, "", "claude hello"},
		{"bound token cannot read another history", tokBound, "chat.history", map[string]any{"sessionKey": "agent:work:main"}, "visibility is restricted", ""},
		{"bound token spawns as itself", tokBound, "sessions.spawn", map[string]any{"task": "x", "requesterSessionKey": boundSession}, "", "accepted"},
		{"bound token cannot spawn as another requester", tokBound, "sessions.spawn", map[string]any{"task": "x", "requesterSessionKey": "agent:work:main"}, "not allowed", ""},
		{"bound token cannot chat into another session", tokBound, "chat.send", map[string]any{"sessionKey": "agent:work:main", "message": "hi"}, "visibility is restricted", ""},
		{"bound token cannot resolve another session", tokBound, "sessions.resolve", map[string]any{"key": "agent:work:main"}, "No session found: agent:work:main", ""},
		{"bound token lists only its sessions", tokBound, "sessions.list", map[string]any{}, "", boundSession},
		{"bound token tool calls act as its session", tokBound, "tools.invoke", map[string]any{"name": "sessions_list", "args": map[string]any{}}, "", `"ok":true`},
		{"bound token cannot deliver", tokBound, "send", map[string]any{"message": "x", "to": "y"}, "needs operator rights", ""},
		{"read token cannot chat", tokRead, "chat.send", map[string]any{"sessionKey": "main", "message": "hi"}, "missing scope: operator.write", ""},
		{"read token waits on runs", tokRead, "agent.wait", map[string]any{"runId": "nope", "timeoutMs": 0}, "run not found", ""},
		{"read token tools.invoke send is an error result", tokRead, "tools.invoke", map[string]any{"name": "sessions_send", "args": map[string]any{"sessionKey": "agent:work:main", "message": "x"}}, "", "missing scope: operator.write"},
		{"write token chats", tokWrite, "chat.send", map[string]any{"sessionKey": "main", "message": "hi"}, "", "started"},
		{"write token cannot reset", tokWrite, "sessions.reset", map[string]any{"key": "main"}, "missing scope: operator.admin", ""},
		{"write token accepts a two-day run timeout", tokWrite, "chat.send", map[string]any{"sessionKey": "main", "message": "long", "timeoutMs": 172_800_000}, "", "started"},
		{"operator lists canonical keys", tokOperator, "sessions.list", map[string]any{}, "", `"key":"agent:main:main"`},
		{"operator tool results keep main", tokOperator, "tools.invoke", map[string]any{"name": "sessions_list", "args": map[string]any{}}, "", `"key":"main"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tt.token}})
			res := w.call(tt.method, tt.params)
			if tt.wantErr != "" {
				if res.OK || !strings.Contains(res.Error.Message, tt.wantErr) {
					t.Fatalf("%s = %s, want an error with %q", tt.method, res, tt.wantErr)
				}
				return
			}
			if !res.OK {
				t.Fatalf("%s refused: %s", tt.method, res)
			}
			if !strings.Contains(string(res.Payload), tt.contains) {
				t.Fatalf("%s payload %s lacks %q", tt.method, res.Payload, tt.contains)
			}
		})
	}
}

// TestBoundTokenEvents: a token bound to a session receives only events
// of sessions it may see; the operator receives every event.
func TestBoundTokenEvents(t *testing.T) {
	e := principalEnv(t)
	bound, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokBound}})
	op, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokOperator}})

	// A run in another session, then one in the bound session: events are
	// fanned out in order, so once the second run's chat event reached the
	// bound client, any event of the first would have too.
	var first struct{ RunID string }
	id := op.send("agent", map[string]any{"message": "work secret", "sessionKey": "agent:work:main", "idempotencyKey": "ev1"})
	op.response(id).decode(t, &first)
	if final := op.response(id); !final.OK {
		t.Fatalf("agent = %s", final)
	}
	var second struct{ RunID string }
	op.ok("chat.send", map[string]any{"sessionKey": boundSession, "message": "for claude", "idempotencyKey": "ev2"}, &second)

	isChatOf := func(runID string) func(frame) bool {
		return func(f frame) bool {
			return f.Type == "event" && f.Event == "chat" && strings.Contains(string(f.Payload), runID)
		}
	}
	bound.wait(isChatOf(second.RunID))
	for _, f := range bound.pending {
		if strings.Contains(string(f.Payload), "agent:work:main") || strings.Contains(string(f.Payload), first.RunID) {
			t.Fatalf("bound client got an event of another session: %s", f)
		}
	}
	// The operator got both.
	op.wait(isChatOf(first.RunID))
	op.wait(isChatOf(second.RunID))
}

// TestMCPScopesThroughGateway: /mcp gates each tool with the token's
// scopes; a read-only token's writes are isError results naming the
// missing scope.
func TestMCPScopesThroughGateway(t *testing.T) {
	e := principalEnv(t)
	call := func(token, tool string, args map[string]any) string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		req, _ := http.NewRequest("POST", e.url+"/mcp", strings.NewReader(string(b)))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := e.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s as %s = %d %s", tool, token, resp.StatusCode, body)
		}
		return string(body)
	}
	tests := []struct {
		name, token, tool string
		args              map[string]any
		missingScope      bool
	}{
		{"read token cannot send", tokRead, "sessions_send", map[string]any{"sessionKey": "agent:work:main", "message": "x", "timeoutSeconds": 0}, true},
		{"read token cannot spawn", tokRead, "sessions_spawn", map[string]any{"task": "x"}, true},
		{"read token cannot cancel sub-agents", tokRead, "subagents", map[string]any{"action": "cancel", "target": "all"}, true},
		{"read token lists sub-agents", tokRead, "subagents", map[string]any{"action": "list"}, false},
		{"read token lists sessions", tokRead, "sessions_list", map[string]any{}, false},
		{"write token sends", tokWrite, "sessions_send", map[string]any{"sessionKey": "agent:work:main", "message": "x", "timeoutSeconds": 0}, false},
		{"bound token spawns", tokBound, "sessions_spawn", map[string]any{"task": "x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := call(tt.token, tt.tool, tt.args)
			got := strings.Contains(body, "missing scope") && strings.Contains(body, `"isError":true`)
			if got != tt.missingScope {
				t.Fatalf("%s = %s, want missing scope %v", tt.tool, body, tt.missingScope)
			}
		})
	}
}

// TestIdempotencyPerPrincipal: a key is scoped to the caller; another
// principal reusing it gets its own run, and the same caller reusing it
// with other parameters gets a conflict (HTTP 409, WS CONFLICT).
func TestIdempotencyPerPrincipal(t *testing.T) {
	e := principalEnv(t)
	chat := func(token, msg string) (int, gateway.ChatResponse, apiError) {
		var raw json.RawMessage
		code := e.doToken(t, token, "POST", "/api/sessions/main/chat", map[string]any{"message": msg, "idempotencyKey": "same-key"}, &raw)
		var out gateway.ChatResponse
		var bad apiError
		_ = json.Unmarshal(raw, &out)
		_ = json.Unmarshal(raw, &bad)
		return code, out, bad
	}
	code, a, _ := chat(tokOperator, "hello")
	if code != 200 || a.Run == nil {
		t.Fatalf("first chat = %d %+v", code, a)
	}
	code, again, _ := chat(tokOperator, "hello")
	if code != 200 || again.Run == nil || again.Run.ID != a.Run.ID || again.Created {
		t.Fatalf("retry = %d %+v, want run %s", code, again, a.Run.ID)
	}
	code, b, _ := chat(tokWrite, "hello")
	if code != 200 || b.Run == nil || b.Run.ID == a.Run.ID || !b.Created {
		t.Fatalf("another principal's chat = %d %+v, want its own run", code, b)
	}
	code, _, bad := chat(tokOperator, "other text")
	if code != 409 || bad.Error.Code != domain.CodeConflict {
		t.Fatalf("reuse with other parameters = %d %+v, want 409", code, bad)
	}

	// WS chat.send: the same key from another principal is another run.
	op, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokOperator}})
	rw, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokWrite}})
	var r1, r2 struct{ RunID string }
	op.ok("chat.send", map[string]any{"sessionKey": "main", "message": "ws hi", "idempotencyKey": "ws-key"}, &r1)
	rw.ok("chat.send", map[string]any{"sessionKey": "main", "message": "ws hi", "idempotencyKey": "ws-key"}, &r2)
	if r1.RunID == "" || r1.RunID == r2.RunID {
		t.Fatalf("ws runs %q and %q, want two runs", r1.RunID, r2.RunID)
	}
	res := op.call("chat.send", map[string]any{"sessionKey": "main", "message": "ws other", "idempotencyKey": "ws-key"})
	if res.OK || res.Error.Code != gateway.CodeConflict {
		t.Fatalf("ws reuse with other parameters = %s, want %s", res, gateway.CodeConflict)
	}
}

// TestCancelAnswers: cancel answers the run with its final status and
// whether this call cancelled it, on WS and HTTP.
func TestCancelAnswers(t *testing.T) {
	e := principalEnv(t, slowRule(5000))
	w, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokOperator}})
	start := func() string {
		var r struct{ RunID string }
		w.ok("chat.send", map[string]any{"sessionKey": "agent:main:slow", "message": "slow one"}, &r)
		return r.RunID
	}
	type cancelResult struct {
		RunID     string `json:"runId"`
		Status    string `json:"status"`
		Cancelled bool   `json:"cancelled"`
	}
	id := start()
	var c cancelResult
	w.ok("runs.cancel", map[string]any{"runId": id}, &c)
	if c.RunID != id || !c.Cancelled || c.Status != string(domain.RunCancelled) {
		t.Fatalf("runs.cancel = %+v", c)
	}
	w.ok("runs.cancel", map[string]any{"runId": id}, &c)
	if c.Cancelled || c.Status != string(domain.RunCancelled) {
		t.Fatalf("second runs.cancel = %+v, want cancelled:false with the final status", c)
	}

	id = start()
	c = cancelResult{}
	if code := e.doToken(t, tokOperator, "POST", "/api/runs/"+id+"/cancel", nil, &c); code != 200 || !c.Cancelled || c.Status != string(domain.RunCancelled) {
		t.Fatalf("HTTP cancel = %d %+v", code, c)
	}
	if code := e.doToken(t, tokOperator, "POST", "/api/runs/"+id+"/cancel", nil, &c); code != 200 || c.Cancelled || c.Status != string(domain.RunCancelled) {
		t.Fatalf("HTTP cancel of an ended run = %d %+v", code, c)
	}

	id = start()
	var aborted struct {
		Aborted bool           `json:"aborted"`
		RunIDs  []string       `json:"runIds"`
		Runs    []cancelResult `json:"runs"`
	}
	w.ok("chat.abort", map[string]any{"sessionKey": "agent:main:slow"}, &aborted)
	if !aborted.Aborted || !slices.Contains(aborted.RunIDs, id) || len(aborted.Runs) == 0 || !aborted.Runs[0].Cancelled || aborted.Runs[0].Status != string(domain.RunCancelled) {
		t.Fatalf("chat.abort = %+v", aborted)
	}
}
