package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
)

// surface connects a client that acts as a principal.
type surface struct {
	name    string
	connect func(t *testing.T, s *Server, p api.Principal) *mcp.ClientSession
}

// surfaces are stdio (the principal given to RunStdio) and the HTTP
// handler (the principal its resolve returns for the client's token).
func surfaces() []surface {
	return []surface{
		{"stdio", func(t *testing.T, s *Server, p api.Principal) *mcp.ClientSession {
			return connectStdio(t, s, p)
		}},
		{"http", func(t *testing.T, s *Server, p api.Principal) *mcp.ClientSession {
			ts := serveHTTP(t, s, map[string]api.Principal{"tok": p})
			return connectHTTP(t, ts.URL+"/mcp", "tok")
		}},
	}
}

// TestScopes: MCP calls the tools as the principal, so its scopes and its
// binding hold as they do on every other surface (issue 10, finding 1: a
// read-only token ran sessions_send, sessions_spawn and subagents cancel
// through /mcp).
func TestScopes(t *testing.T) {
	reader := api.Principal{Name: "reader", Scopes: api.ScopeRead}
	boundReader := api.Principal{Name: "alice-ro", Scopes: api.ScopeRead, Session: "agent:main:alice"}
	elsewhere := api.Principal{Name: "alice", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:alice", As: "agent:main:bob"}

	type step struct {
		tool string
		args map[string]any
		want string // "" = not an error; else a part of the error message
	}
	send := map[string]any{"sessionKey": "agent:main:target", "message": "hi", "timeoutSeconds": 0}
	spawn := map[string]any{"task": "t", "agentId": "main"}
	for _, tc := range []struct {
		name  string
		p     api.Principal
		calls []step
	}{
		{"read-only token", reader, []step{
			{api.ToolSessionsList, map[string]any{}, ""},
			{api.ToolSessionsHistory, map[string]any{"sessionKey": "main"}, ""},
			{api.ToolAgentsList, map[string]any{}, ""},
			{api.ToolSubagents, map[string]any{"action": "list"}, ""},
			{api.ToolSessionsSend, send, "missing scope"},
			{api.ToolSessionsSpawn, spawn, "missing scope"},
			{api.ToolSubagents, map[string]any{"action": "cancel", "target": "all"}, "missing scope"},
		}},
		{"read-only token bound to a session", boundReader, []step{
			{api.ToolSessionsList, map[string]any{}, ""},
			{api.ToolSessionsSend, send, "missing scope"},
			{api.ToolSessionsSpawn, spawn, "missing scope"},
		}},
		{"bound token acting as another session", elsewhere, []step{
			{api.ToolSessionsList, map[string]any{}, "acts as session"},
			{api.ToolSessionsSend, send, "acts as session"},
		}},
	} {
		for _, sf := range surfaces() {
			t.Run(tc.name+"/"+sf.name, func(t *testing.T) {
				e := newEngine(t, "tree")
				chat(t, e, "main", "hello")
				chat(t, e, "agent:main:alice", "hello")
				cs := sf.connect(t, New(e, Options{}), tc.p)
				for _, c := range tc.calls {
					res, p := callMeta(t, cs, c.tool, c.args, mcp.Meta{"idempotencyKey": "k"})
					if c.want == "" {
						if res.IsError {
							t.Errorf("%s %v: isError, payload %v", c.tool, c.args, p)
						}
						continue
					}
					msg, _ := p["error"].(string)
					if !res.IsError || p["status"] != "forbidden" || !strings.Contains(msg, c.want) {
						t.Errorf("%s %v: isError=%v payload=%v, want forbidden with %q", c.tool, c.args, res.IsError, p, c.want)
					}
					if _, ok := p["runId"]; ok {
						t.Errorf("%s refused with a runId: %v", c.tool, p)
					}
				}
				// Nothing refused ran: no target session, no child.
				list, err := e.ListSessions(context.Background(), api.Operator(), api.ListRequest{})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, row := range list.Sessions {
					got = append(got, row.Key)
				}
				slices.Sort(got)
				if want := []string{"agent:main:alice", "main"}; !slices.Equal(got, want) {
					t.Errorf("sessions after the refusals = %v, want %v", got, want)
				}
			})
		}
	}
}

// TestScopesAllowWrite: a token with write and a session bound to it
// sends as that session over MCP (the refusals above are the scope's,
// not the surface's).
func TestScopesAllowWrite(t *testing.T) {
	writer := api.Principal{Name: "alice", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:alice"}
	for _, sf := range surfaces() {
		t.Run(sf.name, func(t *testing.T) {
			e := newEngine(t, "agent")
			cs := sf.connect(t, New(e, Options{}), writer)
			res, p := call(t, cs, api.ToolSessionsSend, map[string]any{"sessionKey": "agent:main:bob", "message": "ping"})
			if res.IsError || p["reply"] != "echo: ping" {
				t.Fatalf("send as a write token: isError=%v payload=%v", res.IsError, p)
			}
			res, p = call(t, cs, api.ToolSessionsHistory, map[string]any{"sessionKey": "current"})
			if res.IsError || p["sessionKey"] != "agent:main:alice" {
				t.Errorf("history of current = isError=%v payload=%v, want alice's session", res.IsError, p)
			}
		})
	}
}

// TestIdempotencyPerPrincipal: a _meta.idempotencyKey is the caller's own
// (issue 10, finding 3): the same key from another token starts its own
// run, a retry by the same token gets its first run, and the same key
// with other parameters is refused.
func TestIdempotencyPerPrincipal(t *testing.T) {
	e := newEngine(t, "agent")
	rw := api.ScopeRead | api.ScopeWrite
	ts := serveHTTP(t, New(e, Options{}), map[string]api.Principal{
		"tok-1": {Name: "ci-1", Scopes: rw}, "tok-2": {Name: "ci-2", Scopes: rw}})
	one := connectHTTP(t, ts.URL+"/mcp", "tok-1")
	two := connectHTTP(t, ts.URL+"/mcp", "tok-2")
	args := map[string]any{"sessionKey": "agent:main:bob", "message": "once", "timeoutSeconds": 0}
	key := mcp.Meta{"idempotencyKey": "shared"}

	send := func(cs *mcp.ClientSession, args map[string]any) map[string]any {
		t.Helper()
		res, p := callMeta(t, cs, api.ToolSessionsSend, args, key)
		if res.IsError {
			t.Fatalf("send: %v", p)
		}
		return p
	}
	first := send(one, args)["runId"]
	if again := send(one, args)["runId"]; again != first {
		t.Errorf("retry by the same token: run %v, want %v", again, first)
	}
	if other := send(two, args)["runId"]; other == first {
		t.Errorf("another token with the same key got run %v of the first", first)
	}
	changed := map[string]any{"sessionKey": "agent:main:bob", "message": "twice", "timeoutSeconds": 0}
	res, p := callMeta(t, one, api.ToolSessionsSend, changed, key)
	if msg, _ := p["error"].(string); !res.IsError || !strings.Contains(msg, api.ErrIdempotencyConflict) {
		t.Errorf("same key, other message: isError=%v payload=%v, want %q", res.IsError, p, api.ErrIdempotencyConflict)
	}
}
