package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestToolsList(t *testing.T) {
	s := New(newEngine(t, "tree"), Options{Version: "test"})
	cs := connectStdio(t, s, operatorAs("main"))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		spec := tools.Specs(tool.Name)[0]
		if tool.Description != spec.Description {
			t.Errorf("%s: description differs from the engine's", tool.Name)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: schema type = %v, want object", tool.Name, schema["type"])
		}
		var want map[string]any
		if err := json.Unmarshal(spec.InputSchema, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want["required"], schema["required"]); diff != "" {
			t.Errorf("%s: required (-engine +advertised):\n%s", tool.Name, diff)
		}
		props, _ := schema["properties"].(map[string]any)
		wantProps, _ := want["properties"].(map[string]any)
		for name := range wantProps {
			if _, ok := props[name]; !ok {
				t.Errorf("%s: property %s not advertised", tool.Name, name)
			}
		}
		for name := range props {
			if strings.Contains(name, "_") {
				t.Errorf("%s: snake_case property %s advertised", tool.Name, name)
			}
		}
		_, idem := props["idempotencyKey"]
		if idem != (tool.Name == api.ToolSessionsSend || tool.Name == api.ToolSessionsSpawn) {
			t.Errorf("%s: idempotencyKey advertised = %v", tool.Name, idem)
		}
		if tool.Annotations == nil || tool.Annotations.Title == "" {
			t.Errorf("%s: no annotations", tool.Name)
		}
	}
	// The SDK lists tools sorted by name.
	want := slices.Sorted(slices.Values(DefaultTools()))
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != "switchboard" || got.Version != "test" {
		t.Errorf("server info = %+v", got)
	}

	// The advertised definitions are a contract with clients: a golden file
	// shows every change in review (go test -run TestToolsList -update).
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantJSON, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(strings.TrimSpace(string(wantJSON)), string(got)); diff != "" {
		t.Errorf("tools/list differs from %s (-want +got):\n%s", golden, diff)
	}
}

func TestToolsOption(t *testing.T) {
	s := New(newEngine(t, "tree"), Options{Tools: []string{api.ToolSessionsList, "nope", api.ToolSessionsList, api.ToolRunsWait}})
	if diff := cmp.Diff([]string{api.ToolSessionsList, api.ToolRunsWait}, s.Tools()); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	cs := connectStdio(t, s, operatorAs("main"))
	// A tool left out is not callable: the SDK answers a protocol error.
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: api.ToolSessionsSend, Arguments: map[string]any{"message": "x"}})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("calling a tool left out: err = %v, want unknown tool", err)
	}
}

func TestSessionsList(t *testing.T) {
	e := newEngine(t, "agent")
	for _, k := range []string{"main", "agent:main:alice", "agent:main:bob"} {
		chat(t, e, k, "hello "+k)
	}
	cs := connectStdio(t, New(e, Options{}), operatorAs("main"))

	res, p := call(t, cs, api.ToolSessionsList, map[string]any{})
	if res.IsError {
		t.Fatalf("isError: %v", p)
	}
	got := keys(t, p)
	sort.Strings(got)
	if diff := cmp.Diff([]string{"agent:main:alice", "agent:main:bob", "main"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if p["count"] != float64(3) {
		t.Errorf("count = %v, want 3", p["count"])
	}

	// Parameters reach the engine: a limit and snake_case aliases.
	_, p = call(t, cs, api.ToolSessionsList, map[string]any{"limit": 1, "message_limit": 2})
	rows := p["sessions"].([]any)
	if len(rows) != 1 {
		t.Fatalf("limit 1: %d rows", len(rows))
	}
	msgs, _ := rows[0].(map[string]any)["messages"].([]any)
	if len(msgs) != 2 {
		t.Errorf("message_limit 2: %d messages, want 2", len(msgs))
	}
}

func TestSessionsSendReply(t *testing.T) {
	e := newEngine(t, "agent")
	cs := connectStdio(t, New(e, Options{}), operatorAs("main"))
	res, p := call(t, cs, api.ToolSessionsSend, map[string]any{"sessionKey": "agent:main:alice", "message": "ping"})
	if res.IsError || p["status"] != "ok" || p["reply"] != "echo: ping" {
		t.Fatalf("isError=%v payload=%v, want ok with reply \"echo: ping\"", res.IsError, p)
	}
	if p["runId"] == "" {
		t.Errorf("no runId: %v", p)
	}
}

func TestForbidden(t *testing.T) {
	e := newEngine(t, "tree")
	chat(t, e, "agent:main:alice", "secret")
	cs := connectStdio(t, New(e, Options{}), operatorAs("main"))
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{api.ToolSessionsHistory, map[string]any{"sessionKey": "agent:main:alice"}},
		{api.ToolSessionsSend, map[string]any{"sessionKey": "agent:main:alice", "message": "hi", "timeoutSeconds": 0}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res, p := call(t, cs, tc.tool, tc.args)
			if !res.IsError || p["status"] != "forbidden" {
				t.Fatalf("isError=%v payload=%v, want isError with status forbidden", res.IsError, p)
			}
			if msg, _ := p["error"].(string); msg == "" {
				t.Errorf("forbidden payload has no error message: %v", p)
			}
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	cs := connectStdio(t, New(newEngine(t, "tree"), Options{}), operatorAs("main"))
	for _, tc := range []struct {
		name string
		tool string
		args any
		want string
	}{
		{"wrong type", api.ToolSessionsList, map[string]any{"limit": "ten"}, "limit must be a number"},
		{"not whole", api.ToolSessionsList, map[string]any{"limit": 1.5}, "limit must be a whole number"},
		{"negative", api.ToolSessionsList, map[string]any{"messageLimit": -1}, "messageLimit must be at least 0"},
		{"unknown parameter", api.ToolSessionsList, map[string]any{"bogus": true}, `unknown parameter "bogus"`},
		{"missing required", api.ToolSessionsHistory, map[string]any{}, "sessionKey required"},
		{"bad enum", api.ToolSessionsList, map[string]any{"kinds": []string{"weird"}}, `unknown kind "weird"`},
		{"empty message", api.ToolSessionsSend, map[string]any{"sessionKey": "main", "message": "  "}, "message required"},
		{"arguments not an object", api.ToolAgentsList, []int{1}, "arguments must be a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, p := call(t, cs, tc.tool, tc.args)
			if !res.IsError || p["status"] != "error" {
				t.Fatalf("isError=%v payload=%v, want an isError result", res.IsError, p)
			}
			if msg, _ := p["error"].(string); !strings.Contains(msg, tc.want) {
				t.Fatalf("error = %q, want it to contain %q", msg, tc.want)
			}
		})
	}
}

func TestBadRequesterKey(t *testing.T) {
	cs := connectStdio(t, New(newEngine(t, "tree"), Options{}), operatorAs("agent::"))
	res, p := call(t, cs, api.ToolSessionsList, nil)
	if !res.IsError || !strings.Contains(p["error"].(string), "requester session") {
		t.Fatalf("isError=%v payload=%v, want a requester session error", res.IsError, p)
	}
}

func TestRunsWait(t *testing.T) {
	e := newEngine(t, "agent")
	cs := connectStdio(t, New(e, Options{}), operatorAs("main"))
	res, p := call(t, cs, api.ToolSessionsSend, map[string]any{"sessionKey": "agent:main:bob", "message": "later", "timeoutSeconds": 0})
	if res.IsError || p["status"] != "accepted" {
		t.Fatalf("send: isError=%v payload=%v, want accepted", res.IsError, p)
	}
	runID, _ := p["runId"].(string)
	res, p = call(t, cs, api.ToolRunsWait, map[string]any{"runId": runID, "timeoutSeconds": 10})
	if res.IsError || p["status"] != "ok" || p["reply"] != "echo: later" || p["runId"] != runID {
		t.Fatalf("runs_wait: isError=%v payload=%v, want ok with reply \"echo: later\"", res.IsError, p)
	}

	res, p = call(t, cs, api.ToolRunsWait, map[string]any{"runId": "no-such-run", "timeoutSeconds": 0})
	if !res.IsError || p["status"] != "error" {
		t.Fatalf("runs_wait unknown run: isError=%v payload=%v, want isError", res.IsError, p)
	}
}

func TestIdempotencyKey(t *testing.T) {
	e := newEngine(t, "agent")
	cs := connectStdio(t, New(e, Options{}), operatorAs("main"))
	send := func(args map[string]any, meta mcp.Meta) string {
		t.Helper()
		res, p := callMeta(t, cs, api.ToolSessionsSend, args, meta)
		if res.IsError {
			t.Fatalf("send: %v", p)
		}
		return p["runId"].(string)
	}
	base := map[string]any{"sessionKey": "agent:main:bob", "message": "once", "timeoutSeconds": 0}

	a := send(base, mcp.Meta{"idempotencyKey": "meta-1"})
	b := send(base, mcp.Meta{"idempotencyKey": "meta-1"})
	if a != b {
		t.Errorf("_meta.idempotencyKey: two runs %s and %s, want one", a, b)
	}
	c := send(base, mcp.Meta{"idempotencyKey": "meta-2"})
	if c == a {
		t.Errorf("a different _meta.idempotencyKey reused run %s", a)
	}

	withArg := map[string]any{"sessionKey": "agent:main:bob", "message": "once", "timeoutSeconds": 0, "idempotencyKey": "arg-1"}
	if d, e := send(withArg, nil), send(withArg, nil); d != e {
		t.Errorf("idempotencyKey argument: two runs %s and %s, want one", d, e)
	}

	if x, y := send(base, nil), send(base, nil); x == y {
		t.Errorf("without a key two sends share run %s", x)
	}
}

// fakeCaller records calls and answers with a fixed outcome.
type fakeCaller struct {
	calls chan fakeCall
	out   api.ToolOutcome
}

type fakeCall struct {
	p    api.Principal
	name string
	args string
}

func (f *fakeCaller) CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	f.calls <- fakeCall{p, name, string(args)}
	return f.out
}

func TestForwarding(t *testing.T) {
	f := &fakeCaller{calls: make(chan fakeCall, 1), out: api.ToolOutcome{Payload: map[string]any{"status": "ok"}}}
	who := api.Principal{Name: "ci", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:worker"}
	cs := connectStdio(t, New(f, Options{}), who)

	for _, tc := range []struct {
		name string
		tool string
		args string
		meta mcp.Meta
		want string // the arguments the caller receives
	}{
		// Arguments go to the caller as sent (aliases and all); the engine,
		// not the SDK, judges them. _meta.idempotencyKey becomes the
		// idempotencyKey argument of the tools that take one.
		{"spawn with _meta key", api.ToolSessionsSpawn, `{"task":"t","run_timeout_seconds":"soon"}`, mcp.Meta{"idempotencyKey": "k"},
			`{"idempotencyKey":"k","run_timeout_seconds":"soon","task":"t"}`},
		{"send with _meta key", api.ToolSessionsSend, `{"sessionKey":"main","message":"m"}`, mcp.Meta{"idempotencyKey": "k2"},
			`{"idempotencyKey":"k2","message":"m","sessionKey":"main"}`},
		{"an argument wins over _meta", api.ToolSessionsSend, `{"message":"m","idempotency_key":"mine"}`, mcp.Meta{"idempotencyKey": "k"},
			`{"message":"m","idempotency_key":"mine"}`},
		{"a non-string _meta key is ignored", api.ToolSessionsSend, `{"message":"m"}`, mcp.Meta{"idempotencyKey": 7},
			`{"message":"m"}`},
		{"tools without a key get none", api.ToolAgentsList, `{}`, mcp.Meta{"idempotencyKey": "k"}, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, p := callMeta(t, cs, tc.tool, json.RawMessage(tc.args), tc.meta)
			got := <-f.calls
			want := fakeCall{p: who, name: tc.tool, args: tc.want}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(fakeCall{})); diff != "" {
				t.Errorf("call (-want +got):\n%s", diff)
			}
			if res.IsError || p["status"] != "ok" {
				t.Errorf("result isError=%v payload=%v", res.IsError, p)
			}
		})
	}
}

func TestErrorOutcome(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status string
		msg    string
	}{
		{domain.Errorf(domain.CodeForbidden, "nope"), "forbidden", "nope"},
		{domain.Invalid("limit must be a number"), "error", "limit must be a number"},
		{context.Canceled, "error", "internal error"},
	} {
		out := errorOutcome(tc.err)
		res := toResult(out)
		if !res.IsError {
			t.Errorf("%v: isError false", tc.err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		if p["status"] != tc.status || p["error"] != tc.msg {
			t.Errorf("%v: payload %v, want status %s error %q", tc.err, p, tc.status, tc.msg)
		}
	}
	// A payload that is not JSON is an error result, not a panic.
	res := toResult(api.ToolOutcome{Payload: make(chan int)})
	if !res.IsError {
		t.Errorf("unmarshalable payload: isError false")
	}
}

func TestInMemoryTransport(t *testing.T) {
	// The SDK's own in-memory transport, with the server built for a
	// requester: the same handlers as RunStdio and HTTPHandler use.
	e := newEngine(t, "agent")
	chat(t, e, "agent:main:carol", "hi")
	s := New(e, Options{})
	owner := newCalls(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	srv, _ := s.newMCPServer(operatorAs("agent:main:carol"), owner, false)
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, p := call(t, cs, api.ToolSessionsHistory, map[string]any{"sessionKey": "current"})
	if p["sessionKey"] != "agent:main:carol" {
		t.Errorf("history of current = %v, want carol's session", p["sessionKey"])
	}
	msgs, _ := p["messages"].([]any)
	if len(msgs) != 2 {
		t.Errorf("%d messages, want 2", len(msgs))
	}
	cs.Close()
	ss.Wait()
	if err := owner.close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
