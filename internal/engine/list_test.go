package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func listResult(t *testing.T, out api.ToolOutcome) api.ListResult {
	t.Helper()
	res, ok := out.Payload.(api.ListResult)
	if !ok {
		t.Fatalf("payload = %s, want api.ListResult", out.JSON())
	}
	return res
}

func keysOf(res api.ListResult) []string {
	var out []string
	for _, r := range res.Sessions {
		out = append(out, r.Key)
	}
	return out
}

func TestListRowsKindsAndLimits(t *testing.T) {
	h := newHarness(t, nil, agentVisibility)
	h.chat("main", "hello")
	h.chat("agent:main:discord:group:42", "hi group")
	h.chat("cron:nightly", "tick")
	res := listResult(t, h.call(Requester{}, api.ToolSessionsList, `{}`))
	if res.Count != 3 || len(res.Sessions) != 3 {
		t.Fatalf("count = %d rows %v", res.Count, keysOf(res))
	}
	byKey := map[string]api.SessionRow{}
	for _, r := range res.Sessions {
		byKey[r.Key] = r
	}
	m, ok := byKey["main"]
	if !ok || m.Kind != "main" || m.Channel != "webchat" || m.SessionID == "" || m.Model != "script" || m.TotalTokens == 0 || m.UpdatedAt == 0 || m.TranscriptPath != "" {
		t.Fatalf("main row = %+v", m)
	}
	g := byKey["agent:main:discord:group:42"]
	if g.Kind != "group" || g.Channel != "discord" {
		t.Fatalf("group row = %+v", g)
	}
	if c := byKey["agent:main:cron:nightly"]; c.Kind != "cron" || c.Channel != "internal" {
		t.Fatalf("cron row = %+v", c)
	}
	if keys := keysOf(listResult(t, h.call(Requester{}, api.ToolSessionsList, `{"kinds":["group","cron"]}`))); len(keys) != 2 {
		t.Fatalf("kinds filter = %v", keys)
	}
	if keys := keysOf(listResult(t, h.call(Requester{}, api.ToolSessionsList, `{"limit":0}`))); len(keys) != 1 {
		t.Fatalf("limit 0 clamps to 1, got %v", keys)
	}
	if keys := keysOf(listResult(t, h.call(Requester{}, api.ToolSessionsList, `{"limit":1000000000}`))); len(keys) != 3 {
		t.Fatalf("huge limit clamps to 200, got %v", keys)
	}
	if keys := keysOf(listResult(t, h.call(Requester{}, api.ToolSessionsList, `{"active_minutes":5}`))); len(keys) != 3 {
		t.Fatalf("activeMinutes alias, got %v", keys)
	}
	for _, bad := range []string{`{"limit":-1}`, `{"limit":"ten"}`, `{"kinds":["main","weird"]}`, `{"kinds":"main"}`, `{"messageLimit":-2}`, `{"activeMinutes":2.5}`} {
		if out := h.call(Requester{}, api.ToolSessionsList, bad); !out.IsError {
			t.Errorf("%s accepted: %s", bad, out.JSON())
		}
	}
}

func TestListMessagesDropToolResults(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Role: "user", Message: "^tools$"}, "agents_list", nil),
	}, nil)
	h.chat("main", "tools")
	res := listResult(t, h.call(Requester{}, api.ToolSessionsList, `{"messageLimit":50}`))
	if len(res.Sessions) != 1 {
		t.Fatalf("rows = %v", keysOf(res))
	}
	msgs := listed(t, res.Sessions[0].Messages)
	if len(msgs) != 3 { // user, assistant tool call, assistant final (tool result removed)
		t.Fatalf("messages = %q", texts(msgs))
	}
	for _, m := range msgs {
		if m.Role == domain.RoleToolResult {
			t.Fatalf("tool result listed: %q", texts(msgs))
		}
	}
}

func TestTreeVisibilityHidesSiblingsAndLeaksNothing(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{Session: "secret"}, "the secret is 42")}, nil)
	h.chat("agent:main:secret", "tell")
	child := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"work"}`))
	h.waitFor("child done", func() bool { return len(announces(h, "main")) == 1 })
	res := listResult(t, h.call(Requester{}, api.ToolSessionsList, `{"messageLimit":5}`))
	keys := keysOf(res)
	if strings.Join(keys, ",") != "main,"+child.ChildSessionKey && strings.Join(keys, ",") != child.ChildSessionKey+",main" {
		t.Fatalf("tree listing = %v", keys)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "secret is 42") {
		t.Fatalf("listing leaks a sibling's messages")
	}
	out := h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"agent:main:secret"}`)
	if !out.IsError || !strings.Contains(string(out.JSON()), `"forbidden"`) || !strings.Contains(errorOf(out), "tools.sessions.visibility=tree") {
		t.Fatalf("sibling history: %s", out.JSON())
	}
	out = h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"`+child.ChildSessionKey+`"}`)
	if out.IsError {
		t.Fatalf("own child history: %s", out.JSON())
	}
	// The operator (CLI without --as) sees everything.
	all, err := h.e.listSessions(t.Context(), Requester{Operator: true}, api.ListRequest{})
	if err != nil || all.Count != 3 {
		t.Fatalf("operator listing = %v, %v", keysOf(all), err)
	}
}

func TestHistoryRefsFlagsAndMasking(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Message: "^key$"}, "use OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz123456 please"),
		rule(config.ScriptWhen{Message: "^long$"}, strings.Repeat("y", 5000)),
		toolCall(config.ScriptWhen{Role: "user", Message: "^tools$"}, "agents_list", nil),
	}, agentVisibility)
	h.chat("main", "key")
	h.chat("main", "long")
	h.chat("main", "tools")
	s, _ := h.e.Session(t.Context(), "main")
	var res api.HistoryResult
	decode := func(out api.ToolOutcome) api.HistoryResult {
		t.Helper()
		if out.IsError {
			t.Fatalf("history: %s", out.JSON())
		}
		return out.Payload.(api.HistoryResult)
	}
	res = decode(h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"`+s.SessionID+`","limit":100}`))
	if res.SessionKey != "main" {
		t.Fatalf("sessionKey = %q", res.SessionKey)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "sk-abcdefghijklmnopqrstuvwxyz123456") || !res.ContentRedacted {
		t.Fatalf("credential not masked: %s", raw)
	}
	if !res.ContentTruncated || !res.Truncated || !strings.Contains(string(raw), "…(truncated)…") {
		t.Fatalf("long text not truncated: truncated=%v", res.ContentTruncated)
	}
	for _, m := range res.Messages {
		if m.Role == domain.RoleToolResult {
			t.Fatalf("toolResult without includeTools")
		}
	}
	withTools := decode(h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"main","includeTools":true,"limit":100}`))
	if len(withTools.Messages) != len(res.Messages)+1 {
		t.Fatalf("includeTools: %d vs %d messages", len(withTools.Messages), len(res.Messages))
	}
	if got := decode(h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"main","limit":2}`)); len(got.Messages) != 2 || got.Messages[1].Role != "assistant" {
		t.Fatalf("limit 2 = %d messages", len(got.Messages))
	}
	if got := decode(h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"agent:main:nothing-yet"}`)); len(got.Messages) != 0 {
		t.Fatalf("new key history = %v", got.Messages)
	}
	for args, want := range map[string]string{
		`{"sessionKey":"6f1c2a54-1111-4222-8333-444455556666"}`: "Session not found",
		`{"sessionKey":"agent::x"}`:                             "",
		`{}`:                                                    "sessionKey required",
		`{"sessionKey":"main","limit":-1}`:                      "limit must be at least 1",
		`{"sessionKey":"main","includeTools":"yes"}`:            "includeTools must be a boolean",
	} {
		out := h.call(Requester{}, api.ToolSessionsHistory, args)
		if !out.IsError || !strings.Contains(errorOf(out), want) {
			t.Errorf("%s: %s, want error %q", args, out.JSON(), want)
		}
	}
}

func TestAgentsList(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) {
		c.Agents.List = []config.AgentConfig{{ID: "main", Name: "Main"}, {ID: "research", Model: "other/model"}}
		c.Agents.Defaults.Subagents.AllowAgents = []string{"*"}
	})
	out := h.call(Requester{}, api.ToolAgentsList, `{}`)
	raw := string(out.JSON())
	if out.IsError || !strings.Contains(raw, `"allowAny": true`) || !strings.Contains(raw, `"research"`) || !strings.Contains(raw, `"requester": "main"`) {
		t.Fatalf("agents_list = %s", raw)
	}
}

// TestListHidesCronRuns: the sessions of cron runs
// (agent:<id>:cron:<job>:run:<run>) are left out of every listing, as
// OpenClaw's sessions.list does; the job's own session is listed, and a run's
// session is still readable by its key.
func TestListHidesCronRuns(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	h.chat("agent:main:cron:nightly:run:r1", "run one")
	h.chat("agent:main:cron:nightly", "the job")
	res, err := h.e.ListSessions(ctx, api.Operator(), api.ListRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range res.Sessions {
		keys = append(keys, r.Key)
	}
	if slices.Contains(keys, "agent:main:cron:nightly:run:r1") || !slices.Contains(keys, "agent:main:cron:nightly") {
		t.Errorf("listed keys = %q, want the job's session and not its run's", keys)
	}
	if hist, err := h.e.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: "agent:main:cron:nightly:run:r1"}); err != nil || len(hist.Messages) == 0 {
		t.Errorf("history of the run's session = %+v, %v", hist, err)
	}
}
