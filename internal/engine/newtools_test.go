package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/spawn"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runspec"
)

// payloadOf decodes a tool outcome's payload into a map.
func payloadOf(t *testing.T, out api.ToolOutcome) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestYieldEndsTheTurnAndTheAnnounceStartsTheNext: the parent spawns a
// child, yields, and its run ends with the yield's message; the child's
// announce starts the parent's next turn.
func TestYieldEndsTheTurnAndTheAnnounceStartsTheNext(t *testing.T) {
	main := "^agent:main:main$"
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: main, Role: "user", Message: "^delegate$"}, api.ToolSessionsSpawn, map[string]any{"task": "count the files"}),
		toolCall(config.ScriptWhen{Session: main, Role: "toolResult", Message: `"accepted"`}, api.ToolSessionsYield, map[string]any{"message": "waiting for the child"}),
		rule(config.ScriptWhen{Session: main, Role: "user", Message: "(?s)Status: ok.*42 files"}, "the child says 42"),
		rule(config.ScriptWhen{Session: ":subagent:"}, "42 files"),
	}, nil)
	first := h.chat("main", "delegate")
	if first.Status != domain.RunOK || first.Reply != "waiting for the child" {
		t.Fatalf("yielding run = %s %q %s; want ok with the yield's message", first.Status, first.Reply, first.Error)
	}
	h.waitFor("the parent's turn on the announce", func() bool {
		runs := runsOf(h, "agent:main:main", domain.RunKindInbound)
		return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
	})
	next := runsOf(h, "agent:main:main", domain.RunKindInbound)[0]
	if next.Status != domain.RunOK || next.Reply != "the child says 42" {
		t.Fatalf("next turn = %s %q; want the announce to start it", next.Status, next.Reply)
	}
	// The yielded turn ends with the yield's tool result: no model call
	// after it, so no assistant message between it and the announce.
	msgs := h.history("main")
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	want := "user assistant toolResult assistant toolResult user assistant"
	if got := strings.Join(roles, " "); got != want {
		t.Fatalf("parent transcript roles = %s; want %s", got, want)
	}
}

func TestYieldOutsideARunIsNoSessionContext(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, req := range []Requester{{Operator: true}, {SessionKey: "main"}} {
		out := h.call(req, api.ToolSessionsYield, `{"message":"x"}`)
		p := payloadOf(t, out)
		if !out.IsError || p["status"] != "error" || p["error"] != api.ErrNoSessionContext {
			t.Fatalf("yield outside a run = %s", out.JSON())
		}
	}
}

func TestNewToolsBadInput(t *testing.T) {
	h := newHarness(t, nil, nil)
	long := strings.Repeat("x", 5000)
	for _, c := range []struct{ tool, args, want string }{
		{api.ToolSessionsYield, `{"message":1}`, "message must be a string"},
		{api.ToolSessionsYield, `{"message":"` + long + `"}`, "message is too long (5000 characters; max 4000)"},
		{api.ToolSessionsYield, `{"wait":true}`, `unknown parameter "wait"`},
		{api.ToolSessionStatus, `{"sessionKey":5}`, "sessionKey must be a string"},
		{api.ToolSessionStatus, `{"model":""}`, "model must not be empty"},
		{api.ToolSessionStatus, `{"model":"nope/model"}`, `model "nope/model": unknown model`},
		{api.ToolSessionStatus, `{"model":"` + long + `"}`, "model is too long"},
		{api.ToolSessionStatus, `{"sessionKey":"agent:ghost:main"}`, "ghost"},
		{api.ToolSessionsSpawn, `{"task":"t","context":"shared"}`, "context must be one of isolated|fork"},
		{api.ToolSessionsSpawn, `{"task":"t","context":true}`, "context must be a string"},
		{api.ToolSessionsSend, `{"sessionKey":"agent:main:x","message":"m","mode":"loud"}`, "mode must be one of followup|steer|notify"},
		{api.ToolSessionsSend, `{"sessionKey":"agent:main:x","message":"m","mode":"notify","idempotencyKey":"k"}`, "idempotencyKey is not supported with mode \"notify\""},
	} {
		out := h.call(Requester{Operator: true}, c.tool, c.args)
		if msg, _ := payloadOf(t, out)["error"].(string); !out.IsError || !strings.Contains(msg, c.want) {
			t.Errorf("%s %s = %s; want an error containing %q", c.tool, c.args, out.JSON(), c.want)
		}
	}
}

func TestSessionStatusCardAndModelSwitch(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.chat("main", "hello")
	out := h.call(Requester{SessionKey: "main"}, api.ToolSessionStatus, `{}`)
	card, ok := out.Payload.(api.StatusResult)
	if !ok || out.IsError {
		t.Fatalf("status = %s", out.JSON())
	}
	if card.Status != "ok" || card.SessionKey != "main" || card.Model != "script" || card.Tokens.Total == 0 || card.ActiveRun != nil ||
		card.QueuedRuns != 0 || card.SendPolicy != "allow" || card.LastActivity == 0 || card.AgentID != "main" {
		t.Fatalf("card = %+v", card)
	}
	// Switch the model, then back to the default.
	out = h.call(Requester{SessionKey: "main"}, api.ToolSessionStatus, `{"model":"other/model"}`)
	card = out.Payload.(api.StatusResult)
	if !card.ModelChanged || card.Model != "other/model" || card.ModelOverride != "other/model" || card.ModelProvider != "other" {
		t.Fatalf("after switch = %s", out.JSON())
	}
	s, _ := h.st.GetSession(t.Context(), "agent:main:main")
	if s.ModelOverride != "other/model" {
		t.Fatalf("stored override = %q", s.ModelOverride)
	}
	out = h.call(Requester{SessionKey: "main"}, api.ToolSessionStatus, `{"model":"default"}`)
	if card = out.Payload.(api.StatusResult); card.Model != "script" || card.ModelOverride != "" || card.ModelProvider != "script" {
		t.Fatalf("after default = %s", out.JSON())
	}
	// A session of another agent is not visible under tree visibility.
	out = h.call(Requester{SessionKey: "main"}, api.ToolSessionStatus, `{"sessionKey":"agent:main:other"}`)
	if p := payloadOf(t, out); !out.IsError || p["status"] != "forbidden" {
		t.Fatalf("status of an unrelated session = %s; want forbidden", out.JSON())
	}
}

func TestSessionStatusScopes(t *testing.T) {
	h := newHarness(t, nil, nil)
	read := api.Principal{Name: "r", Scopes: api.ScopeRead}
	if _, err := h.e.SessionStatus(t.Context(), read, api.StatusRequest{SessionKey: "main"}); err != nil {
		t.Fatalf("read scope reading status: %v", err)
	}
	write := api.Principal{Name: "w", Scopes: api.ScopeRead | api.ScopeWrite}
	_, err := h.e.SessionStatus(t.Context(), write, api.StatusRequest{SessionKey: "main", Model: "other/model"})
	if domain.ErrorCode(err) != domain.CodeForbidden || !strings.Contains(domain.ErrorMessage(err), "admin") {
		t.Fatalf("write scope switching the model = %v; want forbidden (it needs admin, as sessions.patch)", err)
	}
}

// A session that does not exist yet has no id: a card must not show one
// (a random id the session will not get when it is created).
func TestSessionStatusOfMissingSessionHasNoID(t *testing.T) {
	h := newHarness(t, nil, nil)
	op := api.Principal{Name: "op", Scopes: api.ScopeRead | api.ScopeWrite | api.ScopeAdmin}
	res, err := h.e.SessionStatus(t.Context(), op, api.StatusRequest{SessionKey: "agent:main:notyet"})
	if err != nil {
		t.Fatalf("status of a missing session: %v", err)
	}
	if res.SessionID != "" || res.LastActivity != 0 {
		t.Fatalf("status of a missing session = sessionId %q, lastActivity %d; want none", res.SessionID, res.LastActivity)
	}
	switched, err := h.e.SessionStatus(t.Context(), op, api.StatusRequest{SessionKey: "agent:main:notyet", Model: "script"})
	if err != nil {
		t.Fatalf("model switch: %v", err)
	}
	again, err := h.e.SessionStatus(t.Context(), op, api.StatusRequest{SessionKey: "agent:main:notyet"})
	if err != nil || switched.SessionID == "" || again.SessionID != switched.SessionID {
		t.Fatalf("after the switch created it: sessionId %q then %q (%v); want the same, set", switched.SessionID, again.SessionID, err)
	}
}

func TestSpawnForkCopiesTheConversation(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: "^agent:main:main$", Role: "user", Message: "^look$"}, api.ToolAgentsList, nil),
		rule(config.ScriptWhen{Session: "^agent:main:main$", Role: "toolResult"}, "looked"),
		rule(config.ScriptWhen{Session: ":subagent:"}, "child done"),
	}, nil)
	h.chat("main", "my key is sk-abcdefghijklmnopqrstuvwxyz123456")
	h.chat("main", "look")
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"continue","context":"fork"}`))
	h.waitFor("child run", func() bool {
		r, err := h.st.GetRun(t.Context(), res.RunID)
		return err == nil && domain.RunTerminal(r.Status)
	})
	msgs := h.history(res.ChildSessionKey)
	var got []string
	for _, m := range msgs {
		if m.Provenance != nil && m.Provenance.Kind == domain.ProvenanceFork {
			if m.Provenance.SourceSessionKey != "agent:main:main" {
				t.Errorf("fork provenance = %+v", m.Provenance)
			}
			got = append(got, m.Role+": "+m.Content.Text())
			if m.Role == domain.RoleToolResult || len(m.Content.ToolCalls()) > 0 {
				t.Errorf("fork copied tool plumbing: %+v", m)
			}
		}
	}
	if len(got) != 4 || !strings.HasPrefix(got[0], "user: my key is sk-abc") || strings.Contains(got[0], "xyz123456") ||
		got[2] != "user: look" || got[3] != "assistant: looked" {
		t.Fatalf("forked messages = %q; want the conversation, credentials masked, tool calls and results left out", got)
	}
	// Then the task, then the child's answer.
	if n := len(msgs); n != 6 || !strings.Contains(msgs[4].Content.Text(), "continue") || msgs[4].Provenance.Kind != domain.ProvenanceInterSession {
		t.Fatalf("child transcript = %q", texts(msgs))
	}
	list, err := h.e.ListSessions(t.Context(), api.Operator(), api.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Sessions {
		if r.Key == res.ChildSessionKey && !r.ForkedFromParent {
			t.Fatal("list row of a forked child lacks forkedFromParent")
		}
		if r.Key != res.ChildSessionKey && r.ForkedFromParent {
			t.Fatalf("row %s is marked forked", r.Key)
		}
	}
	// The mirror has the copied messages too (they are the child run's).
	child, _ := h.st.GetSession(t.Context(), res.ChildSessionKey)
	h.waitFor("child mirror", func() bool {
		b, err := os.ReadFile(filepath.Join(h.dir, "agents", "main", "sessions", child.SessionID+".jsonl"))
		return err == nil && strings.Contains(string(b), `"kind":"fork"`) && strings.Contains(string(b), "child done")
	})
	// An isolated child gets its task alone.
	iso := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"alone"}`))
	h.waitFor("isolated child", func() bool { return len(h.history(iso.ChildSessionKey)) == 2 })
	if m := h.history(iso.ChildSessionKey)[0]; m.Provenance == nil || m.Provenance.Kind != domain.ProvenanceInterSession {
		t.Fatalf("isolated child's first message = %+v", m)
	}
}

func TestForkBudget(t *testing.T) {
	h := newHarness(t, nil, nil)
	big := strings.Repeat("a", 3000)
	for range 30 {
		h.chat("main", big)
	}
	msgs, err := spawn.ForkMessages(t.Context(), h.e.store, "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	chars := 0
	for _, m := range msgs {
		chars += len([]rune(m.Content.Text()))
	}
	if len(msgs) == 0 || len(msgs) > int(api.ForkMessages.Max) || chars > int(api.ForkChars.Max) {
		t.Fatalf("fork = %d messages, %d chars; budget %d messages, %d chars", len(msgs), chars, api.ForkMessages.Max, api.ForkChars.Max)
	}
	// The newest are kept.
	if last := msgs[len(msgs)-1]; last.Role != domain.RoleAssistant || !strings.HasPrefix(last.Content.Text(), "echo: ") {
		t.Fatalf("last forked message = %+v", last)
	}
	// A requester with no transcript forks nothing.
	none, err := spawn.ForkMessages(t.Context(), h.e.store, "agent:main:fresh")
	if err != nil || len(none) != 0 {
		t.Fatalf("fork of a fresh session = %d, %v", len(none), err)
	}
}

func TestSendNotifyWritesWithoutARun(t *testing.T) {
	h := newHarness(t, nil, nil)
	out := h.call(Requester{Operator: true}, api.ToolSessionsSend, `{"sessionKey":"agent:main:inbox","message":"fyi: build is green","mode":"notify"}`)
	res := sendResult(t, out)
	if res.Status != "ok" || res.MessageID == "" || res.RunID != "" {
		t.Fatalf("notify = %s; want {status:ok, messageId}", out.JSON())
	}
	msgs := h.history("agent:main:inbox")
	if len(msgs) != 1 || msgs[0].Content.Text() != "fyi: build is green" || msgs[0].ID != res.MessageID ||
		msgs[0].Provenance == nil || msgs[0].Provenance.Kind != domain.ProvenanceInterSession || msgs[0].Provenance.SourceTool != api.ToolSessionsSend {
		t.Fatalf("target transcript = %+v", msgs)
	}
	runs, err := h.st.ListRuns(t.Context(), domain.RunQuery{SessionKey: "agent:main:inbox"})
	if err != nil || len(runs) != 0 {
		t.Fatalf("runs on the target = %d, %v; want none", len(runs), err)
	}
	// The mirror has it.
	s, _ := h.st.GetSession(t.Context(), "agent:main:inbox")
	h.waitFor("mirror", func() bool {
		b, err := os.ReadFile(filepath.Join(h.dir, "agents", "main", "sessions", s.SessionID+".jsonl"))
		return err == nil && strings.Contains(string(b), "fyi: build is green")
	})
	// The next run of the target sees it.
	r := h.chat("agent:main:inbox", "what did you get?")
	if r.Status != domain.RunOK {
		t.Fatalf("next run = %s", r.Status)
	}
	if got := texts(h.history("agent:main:inbox")); len(got) != 3 || got[0] != "user: fyi: build is green" {
		t.Fatalf("transcript = %q", got)
	}
}

func TestSendSteerWithNoRunIsAFollowup(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{Session: "worker"}, "done: {{message}}")}, nil)
	out := h.call(Requester{Operator: true}, api.ToolSessionsSend, `{"sessionKey":"agent:main:worker","message":"go","mode":"steer","timeoutSeconds":10}`)
	res := sendResult(t, out)
	if res.Status != "ok" || res.Reply != "done: go" {
		t.Fatalf("steer to an idle session = %s; want the followup's reply", out.JSON())
	}
}

// TestSendSteerJoinsTheRunningRun: the worker's run is busy in a tool
// call (a send to a slow session); a steer sent meanwhile is taken in at
// its next model step, answers with that run's reply, and runs neither a
// reply-back loop nor an announce of its own.
func TestSendSteerJoinsTheRunningRun(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: "worker$", Role: "user", Message: "^start$"}, api.ToolSessionsSend,
			map[string]any{"sessionKey": "agent:main:slow", "message": "hold", "timeoutSeconds": 60}),
		rule(config.ScriptWhen{Session: "worker$", Role: "user", Message: "change plan"}, "plan changed"),
		rule(config.ScriptWhen{Session: "worker$", Role: "toolResult"}, "steer was not seen"),
		{When: config.ScriptWhen{Session: "slow$", Message: "^hold$"}, Reply: str("late"), DelayMs: 60_000},
	}, agentVisibility)
	ctx := context.Background()
	started, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "agent:main:worker", Message: "start"})
	if err != nil {
		t.Fatal(err)
	}
	var slow domain.Run
	h.waitFor("the worker's tool call to block on the slow session", func() bool {
		runs := runsOf(h, "agent:main:slow", domain.RunKindSend)
		if len(runs) == 1 && runs[0].Status == domain.RunRunning {
			slow = runs[0]
			return true
		}
		return false
	})
	steer := sendResult(t, h.call(Requester{Operator: true}, api.ToolSessionsSend,
		`{"sessionKey":"agent:main:worker","message":"change plan","mode":"steer","timeoutSeconds":0,"idempotencyKey":"steer-1"}`))
	if steer.Status != "accepted" || steer.RunID == "" {
		t.Fatalf("steer = %+v", steer)
	}
	if _, err := h.e.rt.Cancel(ctx, slow.ID); err != nil { // unblocks the worker's tool call
		t.Fatal(err)
	}
	host, err := h.e.waitRun(ctx, started.Run.ID, 15e9)
	if err != nil || host.Status != domain.RunOK || host.Reply != "plan changed" {
		t.Fatalf("worker run = %s %q %v; want the steer seen at its next step", host.Status, host.Reply, err)
	}
	joined, err := h.e.waitRun(ctx, steer.RunID, 15e9)
	if err != nil || joined.Status != domain.RunOK || joined.Reply != "plan changed" {
		t.Fatalf("steer run = %s %q %v; want the outcome of the run it joined", joined.Status, joined.Reply, err)
	}
	if n := len(runsOf(h, "agent:main:worker", domain.RunKindAnnounce)) + len(runsOf(h, "agent:main:worker", domain.RunKindReply)); n != 0 {
		t.Fatalf("%d announce/reply runs on the worker; a joined steer runs neither", n)
	}
	if spec, err := runspec.Decode(joined); err != nil || spec.JoinedRunID != host.ID {
		t.Fatalf("steer run spec joinedRunId = %q, %v; want %q", spec.JoinedRunID, err, host.ID)
	}
	// Asked again (the same idempotency key), the answer is the joined run's
	// reply with no announce delivery promised.
	again := h.call(Requester{Operator: true}, api.ToolSessionsSend,
		`{"sessionKey":"agent:main:worker","message":"change plan","mode":"steer","timeoutSeconds":5,"idempotencyKey":"steer-1"}`)
	if res := sendResult(t, again); res.RunID != steer.RunID || res.Status != "ok" || res.Reply != "plan changed" || res.Delivery != nil {
		t.Fatalf("steer answer = %s; want ok with the joined run's reply and no delivery", again.JSON())
	}
}

// TestSpawnForkFromInsideARun: the fork made by a model's tool call copies
// the conversation up to the user message that asked for it, without the
// assistant message that holds the spawn call itself.
func TestSpawnForkFromInsideARun(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: "^agent:main:main$", Role: "user", Message: "^fork it$"}, api.ToolSessionsSpawn,
			map[string]any{"task": "continue", "context": "fork"}),
		rule(config.ScriptWhen{Session: "^agent:main:main$", Role: "toolResult"}, "spawned"),
	}, nil)
	h.chat("main", "the plan is A then B")
	h.chat("main", "fork it")
	children, err := h.st.ListSessions(t.Context(), domain.SessionQuery{SpawnedBy: "agent:main:main"})
	if err != nil || len(children) != 1 || !children[0].ForkedFromParent {
		t.Fatalf("children = %+v, %v; want one forked child", children, err)
	}
	key := children[0].Key
	h.waitFor("child transcript", func() bool { return len(h.history(key)) >= 5 })
	got := texts(h.history(key))
	want := []string{"user: the plan is A then B", "assistant: echo: the plan is A then B", "user: fork it"}
	if len(got) < 4 || strings.Join(got[:3], "|") != strings.Join(want, "|") || !strings.Contains(got[3], "continue") {
		t.Fatalf("child transcript = %q; want %q then the task", got, want)
	}
}
