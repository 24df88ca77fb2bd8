package gateway_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// agentFinal is the final `res` payload of `agent`.
type agentFinal struct {
	RunID   string `json:"runId"`
	Status  string `json:"status"`
	Summary string `json:"summary"`
	Result  struct {
		Payloads []struct {
			Text string `json:"text"`
		} `json:"payloads"`
		Meta struct {
			DurationMs int64 `json:"durationMs"`
			AgentMeta  struct {
				SessionID string       `json:"sessionId"`
				Provider  string       `json:"provider"`
				Model     string       `json:"model"`
				Usage     domain.Usage `json:"usage"`
			} `json:"agentMeta"`
		} `json:"meta"`
	} `json:"result"`
}

type waitResult struct {
	RunID        string `json:"runId"`
	Status       string `json:"status"`
	RunStatus    string `json:"runStatus"`
	WaitTimedOut bool   `json:"waitTimedOut"`
	StartedAt    int64  `json:"startedAt"`
	EndedAt      int64  `json:"endedAt"`
	Error        string `json:"error"`
}

func TestAgentTwoResponsesThenWait(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, map[string]any{"scopes": []string{gateway.ScopeWrite}})
	id := w.send("agent", map[string]any{"message": "hello there", "sessionKey": "main", "idempotencyKey": "k1"})
	ack := w.response(id)
	var accepted struct {
		RunID      string `json:"runId"`
		Status     string `json:"status"`
		AcceptedAt int64  `json:"acceptedAt"`
	}
	ack.decode(t, &accepted)
	if !ack.OK || accepted.Status != "accepted" || accepted.RunID == "" || accepted.AcceptedAt == 0 {
		t.Fatalf("first res = %s", ack)
	}
	final := w.response(id)
	var fin agentFinal
	final.decode(t, &fin)
	if !final.OK || fin.RunID != accepted.RunID || fin.Status != "ok" || fin.Summary != "completed" {
		t.Fatalf("final res = %s", final)
	}
	if len(fin.Result.Payloads) != 1 || fin.Result.Payloads[0].Text != "echo: hello there" {
		t.Fatalf("payloads = %+v", fin.Result.Payloads)
	}
	if m := fin.Result.Meta.AgentMeta; m.SessionID == "" || m.Model != "script" || m.Provider != "script" || m.Usage.Output == 0 {
		t.Fatalf("agentMeta = %+v", m)
	}

	var wr waitResult
	w.ok("agent.wait", map[string]any{"runId": accepted.RunID, "timeoutMs": 0}, &wr)
	if wr.Status != "ok" || wr.RunStatus != string(domain.RunOK) || wr.WaitTimedOut || wr.EndedAt == 0 {
		t.Fatalf("agent.wait = %+v", wr)
	}

	// The same idempotencyKey answers with the first run.
	id2 := w.send("agent", map[string]any{"message": "hello there", "sessionKey": "main", "idempotencyKey": "k1"})
	var again struct {
		RunID string `json:"runId"`
	}
	w.response(id2).decode(t, &again)
	if again.RunID != accepted.RunID {
		t.Fatalf("repeated idempotencyKey ran %s, want %s", again.RunID, accepted.RunID)
	}
	w.response(id2) // its final answer

	res := w.call("agent.wait", map[string]any{"runId": "no-such-run"})
	if res.OK || res.Error.Code != gateway.CodeInvalidRequest || !strings.Contains(res.Error.Message, "run not found") {
		t.Fatalf("unknown run = %s", res)
	}
}

func TestAgentFailureAndPolicy(t *testing.T) {
	boom := "model exploded"
	e := newEnv(t, envOptions{rules: []config.ScriptRule{{When: config.ScriptWhen{Message: "^fail"}, Error: &boom}}})
	w, _ := e.connect(t, nil)
	id := w.send("agent", map[string]any{"message": "fail please", "idempotencyKey": "f1"})
	if ack := w.response(id); !ack.OK {
		t.Fatalf("ack = %s", ack)
	}
	final := w.response(id)
	var p struct {
		RunID, Status, Summary string
	}
	final.decode(t, &p)
	if final.OK || final.Error.Code != gateway.CodeUnavailable || p.Status != "error" || p.RunID == "" || !strings.Contains(final.Error.Message, boom) {
		t.Fatalf("final = %s", final)
	}

	w.ok("sessions.patch", map[string]any{"key": "agent:main:quiet", "sendPolicy": "deny"}, nil)
	res := w.call("agent", map[string]any{"message": "hi", "sessionKey": "agent:main:quiet", "idempotencyKey": "q1"})
	if res.OK || res.Error.Message != "send blocked by session policy" {
		t.Fatalf("deny policy = %s", res)
	}
}

func TestAgentWaitAcrossReconnect(t *testing.T) {
	e := newEnv(t, envOptions{rules: []config.ScriptRule{slowRule(400)}})
	a, _ := e.connect(t, nil)
	id := a.send("agent", map[string]any{"message": "slow job", "idempotencyKey": "s1"})
	var acc struct {
		RunID string `json:"runId"`
	}
	a.response(id).decode(t, &acc)

	// A wait that runs out reports it, distinguishable from a run timeout.
	var short waitResult
	a.ok("agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 1}, &short)
	if short.Status != "timeout" || !short.WaitTimedOut || domain.RunTerminal(domain.RunStatus(short.RunStatus)) {
		t.Fatalf("short wait = %+v", short)
	}

	// A long wait, then the client goes away mid-wait. The runs.get answer
	// proves the wait request was already being handled.
	a.send("agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 60000})
	a.ok("runs.get", map[string]any{"runId": acc.RunID}, nil)
	a.close()

	b, _ := e.connect(t, nil)
	var wr waitResult
	b.ok("agent.wait", map[string]any{"runId": acc.RunID, "timeoutMs": 10000}, &wr)
	if wr.Status != "ok" || wr.RunStatus != string(domain.RunOK) || wr.WaitTimedOut {
		t.Fatalf("wait after reconnect = %+v", wr)
	}
}

func TestChatSendEventsToEveryClient(t *testing.T) {
	e := newEnv(t, envOptions{})
	a, _ := e.connect(t, nil)
	b, _ := e.connect(t, map[string]any{"scopes": []string{gateway.ScopeRead}})
	var started struct {
		RunID, Status, SessionKey string
	}
	a.ok("chat.send", map[string]any{"sessionKey": "main", "message": "hi all", "idempotencyKey": "c1"}, &started)
	// The run goes by the idempotencyKey, in the answer and in its events,
	// as on OpenClaw's gateway (its Control UI matches events by it).
	if started.Status != "started" || started.RunID != "c1" || started.SessionKey != "agent:main:main" {
		t.Fatalf("chat.send = %+v, want runId c1", started)
	}
	for name, w := range map[string]*wsClient{"sender": a, "observer": b} {
		var lastSeq int64
		seen := map[string]bool{}
		for !seen["chat"] {
			f := w.wait(func(f frame) bool { return f.Type == "event" && (f.Event == "chat" || f.Event == "agent") })
			if f.Seq == nil || *f.Seq <= lastSeq {
				t.Fatalf("%s: seq %v not increasing after %d", name, f.Seq, lastSeq)
			}
			lastSeq = *f.Seq
			var p map[string]any
			f.decode(t, &p)
			if p["runId"] != started.RunID {
				continue
			}
			switch f.Event {
			case "agent":
				seen["agent:"+p["stream"].(string)] = true
			case "chat":
				seen["chat"] = true
				msg, _ := p["message"].(map[string]any)
				if p["state"] != "final" || p["sessionKey"] != "agent:main:main" || msg == nil {
					t.Fatalf("%s: chat event = %v", name, p)
				}
				content := msg["content"].([]any)[0].(map[string]any)
				if content["text"] != "echo: hi all" {
					t.Fatalf("%s: chat message = %v", name, msg)
				}
			}
		}
		if !seen["agent:lifecycle"] || !seen["agent:assistant"] {
			t.Fatalf("%s: saw %v, want lifecycle and assistant agent events", name, seen)
		}
	}
	// sessions.changed arrives for the session too.
	f := b.wait(func(f frame) bool { return f.Event == "sessions.changed" })
	var sc map[string]any
	f.decode(t, &sc)
	if sc["sessionKey"] != "agent:main:main" || sc["reason"] == "" {
		t.Fatalf("sessions.changed = %v", sc)
	}

	// chat.history returns the raw transcript with canonical keys.
	var hist struct {
		SessionKey string           `json:"sessionKey"`
		SessionID  string           `json:"sessionId"`
		Messages   []domain.Message `json:"messages"`
	}
	b.ok("chat.history", map[string]any{"sessionKey": "main", "limit": 5}, &hist)
	if hist.SessionKey != "agent:main:main" || hist.SessionID == "" || len(hist.Messages) != 2 || hist.Messages[1].Content.Text() != "echo: hi all" {
		t.Fatalf("chat.history = %+v", hist)
	}

	// sessionInfo names the session's last run by the key too: OpenClaw's
	// Control UI retires the message it sent when it sees that run there.
	var withInfo struct {
		SessionInfo struct {
			Key          string   `json:"key"`
			LastRunID    string   `json:"lastRunId"`
			HasActiveRun bool     `json:"hasActiveRun"`
			ActiveRunIDs []string `json:"activeRunIds"`
			Status       string   `json:"status"`
		} `json:"sessionInfo"`
	}
	var consumed struct {
		Messages          []struct{ ID, Role string }                 `json:"messages"`
		InputConsumptions []struct{ RunID, ConsumedByEventID string } `json:"inputConsumptions"`
	}
	a.ok("agent.wait", map[string]any{"runId": "c1", "timeoutMs": 5000}, nil)
	a.ok("chat.history", map[string]any{"sessionKey": "main", "inputRunIds": []string{"c1", "nope"}}, &consumed)
	// The run's user message took its input: the UI drops its own copy.
	user := consumed.Messages[0]
	if ic := consumed.InputConsumptions; user.Role != "user" || user.ID == "" || len(ic) != 1 || ic[0].RunID != "c1" || ic[0].ConsumedByEventID != user.ID {
		t.Fatalf("inputConsumptions = %+v, want c1 consumed by %+v", ic, user)
	}
	a.ok("chat.history", map[string]any{"sessionKey": "main"}, &withInfo)
	if si := withInfo.SessionInfo; si.Key != "agent:main:main" || si.LastRunID != "c1" || si.HasActiveRun || len(si.ActiveRunIDs) != 0 || si.Status != "done" {
		t.Fatalf("chat.history sessionInfo = %+v", si)
	}

	// agent.wait and runs.get take the key too, and answer by it.
	var waited struct{ RunID, Status string }
	a.ok("agent.wait", map[string]any{"runId": "c1", "timeoutMs": 5000}, &waited)
	if waited.RunID != "c1" || waited.Status != "ok" {
		t.Fatalf("agent.wait by the idempotencyKey = %+v", waited)
	}
	var run struct{ RunID, Status string }
	a.ok("runs.get", map[string]any{"runId": "c1"}, &run)
	if run.RunID != "c1" || run.Status != string(domain.RunOK) {
		t.Fatalf("runs.get by the idempotencyKey = %+v", run)
	}
}

func TestPatchThenList(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	var patched struct {
		OK    bool               `json:"ok"`
		Key   string             `json:"key"`
		Entry gateway.SessionRow `json:"entry"`
	}
	w.ok("sessions.patch", map[string]any{"key": "agent:main:discord:group:42", "label": "ops room", "sendPolicy": "deny", "thinkingLevel": "low"}, &patched)
	if !patched.OK || patched.Key != "agent:main:discord:group:42" || patched.Entry.Label != "ops room" || patched.Entry.Kind != "group" {
		t.Fatalf("patch = %+v", patched)
	}
	var list struct {
		Count    int                  `json:"count"`
		Path     string               `json:"path"`
		Defaults map[string]any       `json:"defaults"`
		Sessions []gateway.SessionRow `json:"sessions"`
	}
	w.ok("sessions.list", map[string]any{"limit": 10, "includeGlobal": true}, &list)
	if list.Count != 1 || len(list.Sessions) != 1 {
		t.Fatalf("list = %+v", list)
	}
	got := list.Sessions[0]
	want := gateway.SessionRow{Key: "agent:main:discord:group:42", Kind: "group", Label: "ops room", Channel: "discord", ChatType: "group",
		SendPolicy: "deny", ThinkingLevel: "low", Model: "script", ModelProvider: "script",
		UpdatedAt: got.UpdatedAt, SessionID: got.SessionID, Usage: &domain.SessionUsage{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("row (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(list.Path, "agents/{agentId}/sessions/sessions.json") || list.Defaults["model"] != "script" {
		t.Fatalf("path %q defaults %v", list.Path, list.Defaults)
	}

	// null clears; filters apply.
	patched.Entry = gateway.SessionRow{}
	w.ok("sessions.patch", map[string]any{"key": "agent:main:discord:group:42", "sendPolicy": nil, "label": nil}, &patched)
	if patched.Entry.SendPolicy != "" || patched.Entry.Label != "" {
		t.Fatalf("cleared entry = %+v", patched.Entry)
	}
	w.ok("sessions.list", map[string]any{"agentId": "work"}, &list)
	if list.Count != 0 {
		t.Fatalf("agentId filter kept %+v", list.Sessions)
	}
}

func TestOtherMethods(t *testing.T) {
	e := newEnv(t, envOptions{rules: []config.ScriptRule{slowRule(5000)}, cfg: func(c *config.Config) {
		c.Agents.Defaults.Subagents.AllowAgents = []string{"work"}
	}})
	w, _ := e.connect(t, nil)

	var agents struct {
		DefaultID string `json:"defaultId"`
		MainKey   string `json:"mainKey"`
		Scope     string `json:"scope"`
		Agents    []struct {
			ID, Name string
			Model    struct{ Primary string }
		}
	}
	w.ok("agents.list", nil, &agents)
	if agents.DefaultID != "main" || agents.MainKey != "main" || agents.Scope != "per-sender" || len(agents.Agents) != 2 || agents.Agents[0].Name != "Main" ||
		agents.Agents[0].Model.Primary == "" {
		t.Fatalf("agents.list = %+v", agents)
	}

	// A session to act on.
	id := w.send("agent", map[string]any{"message": "hi", "sessionKey": "agent:main:scratch", "label": "scratch pad", "idempotencyKey": "o1"})
	w.response(id)
	w.response(id)

	var resolved struct {
		OK  bool   `json:"ok"`
		Key string `json:"key"`
	}
	w.ok("sessions.resolve", map[string]any{"label": "scratch pad"}, &resolved)
	if resolved.Key != "agent:main:scratch" {
		t.Fatalf("resolve = %+v", resolved)
	}
	if res := w.call("sessions.resolve", map[string]any{"key": "a", "label": "b"}); res.OK || !strings.Contains(res.Error.Message, "not multiple") {
		t.Fatalf("resolve both = %s", res)
	}

	var reset struct {
		OK    bool               `json:"ok"`
		Entry gateway.SessionRow `json:"entry"`
	}
	before := e.session(t, "agent:main:scratch")
	w.ok("sessions.reset", map[string]any{"key": "agent:main:scratch"}, &reset)
	if !reset.OK || reset.Entry.SessionID == before.SessionID {
		t.Fatalf("reset kept sessionId %s: %+v", before.SessionID, reset)
	}

	var sent struct {
		RunID, MessageID, Channel, Status string
	}
	w.ok("send", map[string]any{"to": "someone", "message": "hello out there", "sessionKey": "agent:main:scratch", "idempotencyKey": "out-1"}, &sent)
	// A real message id, never the idempotency key.
	if sent.RunID != "" || sent.Status != "queued" || sent.MessageID == "" {
		t.Fatalf("send = %+v", sent)
	}

	// A slow run to abort with chat.abort, and one to cancel with runs.cancel.
	id = w.send("agent", map[string]any{"message": "slow a", "sessionKey": "agent:main:slowpoke", "idempotencyKey": "o2"})
	var slow struct{ RunID string }
	w.response(id).decode(t, &slow)
	var aborted struct {
		OK      bool     `json:"ok"`
		Aborted bool     `json:"aborted"`
		RunIDs  []string `json:"runIds"`
	}
	w.ok("chat.abort", map[string]any{"sessionKey": "agent:main:slowpoke"}, &aborted)
	if !aborted.Aborted || len(aborted.RunIDs) != 1 || aborted.RunIDs[0] != slow.RunID {
		t.Fatalf("chat.abort = %+v", aborted)
	}
	final := w.response(id)
	if final.OK {
		t.Fatalf("aborted run's final res = %s", final)
	}
	var wr waitResult
	w.ok("agent.wait", map[string]any{"runId": slow.RunID}, &wr)
	if wr.Status != "error" || wr.RunStatus != string(domain.RunCancelled) || wr.WaitTimedOut {
		t.Fatalf("wait on cancelled = %+v", wr)
	}

	id = w.send("agent", map[string]any{"message": "slow b", "sessionKey": "agent:main:slowpoke", "idempotencyKey": "o3"})
	w.response(id).decode(t, &slow)
	var run domain.Run
	w.ok("runs.cancel", map[string]any{"runId": slow.RunID}, &run)
	if run.ID != slow.RunID {
		t.Fatalf("runs.cancel = %+v", run)
	}
	w.response(id)
	w.ok("runs.get", map[string]any{"runId": slow.RunID}, &run)
	if run.Status != domain.RunCancelled {
		t.Fatalf("runs.get after cancel = %+v", run)
	}

	var spawned struct {
		Status, ChildSessionKey, RunID string
	}
	w.ok("sessions.spawn", map[string]any{"task": "count to three", "agentId": "work", "requesterSessionKey": "main"}, &spawned)
	if spawned.Status != "accepted" || !strings.HasPrefix(spawned.ChildSessionKey, "agent:work:subagent:") {
		t.Fatalf("sessions.spawn = %+v", spawned)
	}
	if res := w.call("sessions.spawn", map[string]any{"task": "x", "to": "nobody"}); res.OK || !strings.Contains(res.Error.Message, `does not support "to"`) {
		t.Fatalf("spawn with to = %s", res)
	}

	var inv struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
	}
	w.ok("tools.invoke", map[string]any{"name": "sessions_list", "args": map[string]any{"limit": 5}, "sessionKey": "main"}, &inv)
	if !inv.OK || !strings.Contains(string(inv.Result), `"sessions"`) {
		t.Fatalf("tools.invoke = %+v %s", inv, inv.Result)
	}
	w.ok("tools.invoke", map[string]any{"name": "no_such_tool", "args": map[string]any{}}, &inv)
	if inv.OK || !strings.Contains(string(inv.Result), "tool not available") {
		t.Fatalf("tools.invoke unknown = %+v %s", inv, inv.Result)
	}

	var del struct {
		OK, Deleted bool
		Key         string
	}
	w.ok("sessions.delete", map[string]any{"key": "agent:main:scratch"}, &del)
	if !del.Deleted || del.Key != "agent:main:scratch" {
		t.Fatalf("delete = %+v", del)
	}
	if res := w.call("sessions.delete", map[string]any{"key": "main"}); res.OK || !strings.Contains(res.Error.Message, "Cannot delete the main session") {
		t.Fatalf("delete main = %s", res)
	}
}

// session reads a session row from the engine.
func (e *env) session(t testing.TB, key string) domain.Session {
	t.Helper()
	s, err := e.eng.Session(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDeliveryHintsAreRecorded checks that the delivery hints of `agent`
// (to, accountId, threadId) and chat.send (originating*)
// become the session's deliveryContext, lastChannel/lastTo/lastAccountId
// and origin, as the reference's list row promises.
func TestDeliveryHintsAreRecorded(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	id := w.send("agent", map[string]any{"message": "hi", "sessionKey": "agent:main:telegram:group:5", "channel": "telegram",
		"to": "group:5", "accountId": "bot1", "threadId": "77", "idempotencyKey": "d1"})
	w.response(id)
	w.response(id)
	w.ok("chat.send", map[string]any{"sessionKey": "agent:main:direct:alice", "message": "hey", "idempotencyKey": "d2",
		"originatingChannel": "signal", "originatingTo": "+1555"}, nil)
	rows := map[string]gateway.SessionRow{}
	var list struct {
		Sessions []gateway.SessionRow `json:"sessions"`
	}
	w.ok("sessions.list", map[string]any{}, &list)
	for _, r := range list.Sessions {
		rows[r.Key] = r
	}
	g := rows["agent:main:telegram:group:5"]
	if g.DeliveryContext == nil || *g.DeliveryContext != (domain.DeliveryContext{Channel: "telegram", To: "group:5", AccountID: "bot1", ThreadID: "77"}) ||
		g.LastChannel != "telegram" || g.LastTo != "group:5" || g.LastAccountID != "bot1" {
		t.Errorf("telegram group row = %+v (deliveryContext %+v)", g, g.DeliveryContext)
	}
	d := rows["agent:main:direct:alice"]
	if d.DeliveryContext == nil || d.DeliveryContext.Channel != "signal" || d.DeliveryContext.To != "+1555" || d.LastTo != "+1555" || d.Channel != "signal" {
		t.Errorf("signal direct row = %+v (deliveryContext %+v)", d, d.DeliveryContext)
	}
	// sessionId (without sessionKey) picks the session it names; an unknown
	// one is refused, never a run in main.
	var agentFinal struct {
		SessionKey string `json:"sessionKey"`
	}
	id = w.send("agent", map[string]any{"message": "by id", "sessionId": g.SessionID, "idempotencyKey": "d4"})
	w.response(id)
	if res := w.response(id); !res.OK || json.Unmarshal(res.Payload, &agentFinal) != nil || agentFinal.SessionKey != "agent:main:telegram:group:5" {
		t.Errorf("agent by sessionId %s = %s, want a run in agent:main:telegram:group:5", g.SessionID, res)
	}
	if res := w.call("agent", map[string]any{"message": "x", "sessionId": "00000000-0000-4000-8000-000000000000", "idempotencyKey": "d5"}); res.OK ||
		!strings.Contains(res.Error.Message, "00000000-0000-4000-8000-000000000000") {
		t.Errorf("agent with an unknown sessionId = %s, want refused", res)
	}
	if res := w.call("agent", map[string]any{"message": "x", "sessionKey": "main", "threadId": true, "idempotencyKey": "d3"}); res.OK ||
		!strings.Contains(res.Error.Message, "at /threadId: must be string") {
		t.Errorf("threadId true = %s", res)
	}
}

// chat.history without a limit returns OpenClaw's default of 200 messages
// (OpenClaw's gateway methods), not sessions_history's 50.
func TestChatHistoryDefaultLimit(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	const turns = 26 // 52 messages: more than 50
	for i := range turns {
		id := w.send("agent", map[string]any{"message": fmt.Sprintf("m%d", i), "sessionKey": "agent:main:long", "idempotencyKey": fmt.Sprintf("h%d", i)})
		w.response(id)
		if res := w.response(id); !res.OK {
			t.Fatalf("agent turn %d = %s", i, res)
		}
	}
	var hist struct {
		Messages []json.RawMessage `json:"messages"`
	}
	w.ok("chat.history", map[string]any{"sessionKey": "agent:main:long"}, &hist)
	if len(hist.Messages) != 2*turns {
		t.Errorf("chat.history without limit = %d messages, want %d", len(hist.Messages), 2*turns)
	}
	w.ok("chat.history", map[string]any{"sessionKey": "agent:main:long", "limit": 5}, &hist)
	if len(hist.Messages) != 5 {
		t.Errorf("chat.history limit 5 = %d messages", len(hist.Messages))
	}
}

// chat.history's maxChars (OpenClaw's gateway methods: 1..500000, default 12000)
// cuts each text field; it was accepted and ignored.
func TestChatHistoryMaxChars(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	long := strings.Repeat("a", 13_000)
	id := w.send("agent", map[string]any{"message": long, "sessionKey": "agent:main:wide", "idempotencyKey": "wide"})
	w.response(id)
	if res := w.response(id); !res.OK {
		t.Fatalf("agent = %s", res)
	}
	cases := []struct {
		name    string
		params  map[string]any
		want    int // length of the user message's text, marker included
		wantErr string
	}{
		{"default 12000", map[string]any{}, 12_000 + len("\n…(truncated)…"), ""},
		{"maxChars 10", map[string]any{"maxChars": 10}, 10 + len("\n…(truncated)…"), ""},
		{"maxChars 1", map[string]any{"maxChars": 1}, 1 + len("\n…(truncated)…"), ""},
		{"maxChars 0 is refused, as by OpenClaw", map[string]any{"maxChars": 0}, 0, "at /maxChars: must be >= 1"},
		{"maxChars above the text keeps it", map[string]any{"maxChars": 500_000}, 13_000, ""},
		{"maxChars above the limit is refused", map[string]any{"maxChars": 9_000_000}, 0, "at /maxChars: must be <= 500000"},
		{"negative maxChars", map[string]any{"maxChars": -5}, 0, "at /maxChars: must be >= 1"},
		{"maxChars of the wrong type", map[string]any{"maxChars": "ten"}, 0, "at /maxChars: must be integer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"sessionKey": "agent:main:wide"}
			maps.Copy(params, tc.params)
			if tc.wantErr != "" {
				if res := w.call("chat.history", params); res.OK || !strings.Contains(res.Error.Message, tc.wantErr) {
					t.Fatalf("chat.history %v = %s, want %q", tc.params, res, tc.wantErr)
				}
				return
			}
			var hist struct {
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			w.ok("chat.history", params, &hist)
			if len(hist.Messages) != 2 || hist.Messages[0].Role != "user" {
				t.Fatalf("messages = %+v", hist.Messages)
			}
			var text string
			if err := json.Unmarshal(hist.Messages[0].Content, &text); err != nil {
				t.Fatalf("user content %s: %v", hist.Messages[0].Content, err)
			}
			if len(text) != tc.want {
				t.Errorf("user text is %d bytes, want %d", len(text), tc.want)
			}
		})
	}
}
