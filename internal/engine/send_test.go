package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runspec"
)

const research = "agent:main:research"

// agentVisibility lets sessions of one agent see each other.
func agentVisibility(c *config.Config) { c.Tools.Sessions.Visibility = "agent" }

func toolCall(when config.ScriptWhen, name string, args map[string]any) config.ScriptRule {
	return config.ScriptRule{When: when, ToolCall: &config.ScriptToolCall{Name: name, Arguments: args}}
}

func sendResult(t *testing.T, out api.ToolOutcome) api.SendResult {
	t.Helper()
	res, ok := out.Payload.(api.SendResult)
	if !ok {
		t.Fatalf("payload = %#v, want api.SendResult", out.Payload)
	}
	return res
}

func outboxOf(h *harness, kind domain.OutboxKind) []domain.OutboxItem {
	items, err := h.st.ListOutbox(h.t.Context(), domain.OutboxQuery{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []domain.OutboxItem
	for _, it := range items {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

func runsOf(h *harness, key string, kind domain.RunKind) []domain.Run {
	runs, err := h.st.ListRuns(h.t.Context(), domain.RunQuery{SessionKey: key, Kinds: []domain.RunKind{kind}})
	if err != nil {
		h.t.Fatal(err)
	}
	return runs
}

func TestSendFromOutsideARunRepliesAndAnnounces(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent announce step:"}, "announcing: done"),
		rule(config.ScriptWhen{Session: "research$", Message: "^find (.*)$"}, "found $1"),
	}, agentVisibility)
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:main:research","message":"find cats"}`))
	if res.Status != "ok" || res.Reply != "found cats" || res.SessionKey != research || res.RunID == "" {
		t.Fatalf("result = %+v", res)
	}
	if res.Delivery == nil || res.Delivery.Status != "pending" || res.Delivery.Mode != "announce" {
		t.Fatalf("delivery = %+v", res.Delivery)
	}
	h.waitFor("announce delivered", func() bool {
		items := outboxOf(h, domain.OutboxAnnounce)
		return len(items) == 1 && items[0].Status == domain.OutboxDelivered
	})
	msgs := h.history(research)
	want := []string{"user: find cats", "assistant: found cats", "user: Agent-to-agent announce step.", "assistant: announcing: done"}
	if strings.Join(texts(msgs), "|") != strings.Join(want, "|") {
		t.Fatalf("target transcript = %q, want %q", texts(msgs), want)
	}
	p := msgs[0].Provenance
	if p == nil || p.Kind != domain.ProvenanceInterSession || p.SourceSessionKey != "agent:main:main" || p.SourceTool != "sessions_send" {
		t.Fatalf("provenance = %+v", p)
	}
	if n := len(runsOf(h, "agent:main:main", domain.RunKindReply)); n != 0 {
		t.Fatalf("reply-back turns from outside a run = %d, want 0", n)
	}
	primary := runsOf(h, research, domain.RunKindSend)
	if len(primary) != 1 {
		t.Fatalf("primary runs = %d", len(primary))
	}
	var spec runspec.Spec
	_ = json.Unmarshal(primary[0].Spec, &spec)
	if !strings.HasPrefix(spec.System, domain.A2AHeaderMessage) || strings.Contains(spec.System, domain.A2AHeaderReply) || strings.Contains(spec.System, domain.A2AHeaderAnnounce) {
		t.Fatalf("injected context = %q", spec.System)
	}
}

func TestSendInsideARunRunsReplyBackLoop(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		// main's agent asks research, then (after the tool result) replies with the tool result (default).
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^ask research (.*)$"}, "sessions_send",
			map[string]any{"sessionKey": research, "message": "$1"}),
		// research: turn 2 (its first reply step) ends the exchange.
		rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent reply step:"}, "REPLY_SKIP"),
		rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent announce step:"}, "ANNOUNCE_SKIP"),
		rule(config.ScriptWhen{Session: "research$"}, "research answer"),
		rule(config.ScriptWhen{Session: ":main:main$", System: "Agent-to-agent reply step:"}, "thanks, research"),
	}, agentVisibility)
	r := h.chat("main", "ask research what is up")
	if r.Status != domain.RunOK {
		t.Fatalf("main run = %s %s", r.Status, r.Error)
	}
	h.waitFor("announce step ran", func() bool {
		runs := runsOf(h, research, domain.RunKindAnnounce)
		return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
	})
	mainTurns := runsOf(h, "agent:main:main", domain.RunKindReply)
	targetTurns := runsOf(h, research, domain.RunKindReply)
	if len(mainTurns) != 1 || len(targetTurns) != 1 {
		t.Fatalf("reply turns: requester %d, target %d; want 1 and 1", len(mainTurns), len(targetTurns))
	}
	if mainTurns[0].Message != "research answer" || mainTurns[0].Reply != "thanks, research" {
		t.Fatalf("turn 1 = %q → %q", mainTurns[0].Message, mainTurns[0].Reply)
	}
	spec := mustSpec(t, mainTurns[0])
	if !strings.HasPrefix(spec.System, domain.A2AHeaderReply) || !strings.Contains(spec.System, "Agent 1 (requester)") || !strings.Contains(spec.System, "Turn 1 of 5.") {
		t.Fatalf("turn 1 context = %q", spec.System)
	}
	if spec2 := mustSpec(t, targetTurns[0]); !strings.Contains(spec2.System, "Agent 2 (target)") || !strings.Contains(spec2.System, "Turn 2 of 5.") {
		t.Fatalf("turn 2 context = %q", spec2.System)
	}
	ann := runsOf(h, research, domain.RunKindAnnounce)[0]
	as := mustSpec(t, ann)
	for _, want := range []string{"Original request: what is up", "Round 1 reply: research answer", "Latest reply: thanks, research"} {
		if !strings.Contains(as.System, want) {
			t.Errorf("announce context lacks %q:\n%s", want, as.System)
		}
	}
	if len(outboxOf(h, domain.OutboxAnnounce)) != 0 {
		t.Fatalf("ANNOUNCE_SKIP still queued a delivery")
	}
	// The reply-back turn is a new user message on the requester, exactly the target's text.
	msgs := h.history("main")
	found := false
	for _, m := range msgs {
		if m.Role == domain.RoleUser && m.Content.Text() == "research answer" && m.Provenance != nil && m.Provenance.SourceSessionKey == research {
			found = true
		}
	}
	if !found {
		t.Fatalf("requester transcript lacks the reply-back message: %q", texts(msgs))
	}
}

func TestSendMaxPingPongTurnsBounds(t *testing.T) {
	for _, turns := range []int{0, 1, 3} {
		h := newHarness(t, []config.ScriptRule{
			toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^go$"}, "sessions_send",
				map[string]any{"sessionKey": research, "message": "ping"}),
			rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "ANNOUNCE_SKIP"),
			rule(config.ScriptWhen{System: "Agent-to-agent reply step:"}, "pong"),
		}, func(c *config.Config) { agentVisibility(c); c.Session.AgentToAgent.MaxPingPongTurns = turns })
		h.chat("main", "go")
		h.waitFor("announce", func() bool {
			runs := runsOf(h, research, domain.RunKindAnnounce)
			return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
		})
		got := len(runsOf(h, "agent:main:main", domain.RunKindReply)) + len(runsOf(h, research, domain.RunKindReply))
		if got != turns {
			t.Errorf("maxPingPongTurns=%d: %d reply turns ran", turns, got)
		}
	}
}

func TestSendTimeoutStillFinishesAndAnnounces(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: "research$", Message: "^hold$"}, Reply: str("held"), DelayMs: 60_000},
		rule(config.ScriptWhen{Session: "research$", Message: "^slow$"}, "late answer"),
		rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "posted"),
	}, agentVisibility)
	// A run holding research's lane keeps the send's run queued until the
	// test lets it go: the wait runs out whatever the machine's load.
	hold, err := h.e.chat(t.Context(), api.ChatRequest{SessionKey: research, Message: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"research","message":"slow","timeoutSeconds":1}`))
	if res.Status != "timeout" || res.Error == "" || res.RunID == "" {
		t.Fatalf("result = %+v, want timeout", res)
	}
	if _, err := h.e.cancelRun(t.Context(), hold.Run.ID); err != nil {
		t.Fatal(err)
	}
	r, err := h.e.waitRun(t.Context(), res.RunID, 10*time.Second)
	if err != nil || r.Status != domain.RunOK || r.Reply != "late answer" {
		t.Fatalf("run after wait = %+v, %v", r, err)
	}
	h.waitFor("announce after timeout", func() bool { return len(outboxOf(h, domain.OutboxAnnounce)) == 1 })
}

func TestSendFireAndForget(t *testing.T) {
	h := newHarness(t, nil, agentVisibility)
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"session_key":"research","message":"hi","timeout_seconds":0}`))
	if res.Status != "accepted" || res.RunID == "" || res.Reply != "" {
		t.Fatalf("result = %+v", res)
	}
	// Once accepted, the session row and the run are committed.
	if _, err := h.st.GetSession(t.Context(), research); err != nil {
		t.Fatalf("session row after accepted: %v", err)
	}
	r, err := h.e.waitRun(t.Context(), res.RunID, 10*time.Second)
	if err != nil || r.Reply != "echo: hi" {
		t.Fatalf("run = %+v, %v", r, err)
	}
}

func TestSendErrorsAndPolicy(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: "broken$"}, Error: str("model exploded")},
	}, func(c *config.Config) {
		agentVisibility(c)
		c.Session.SendPolicy = &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
			{Match: config.SendPolicyMatch{Channel: "discord", ChatType: "group"}, Action: "deny"}}, Default: "allow"}
	})
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"broken","message":"hi"}`))
	if res.Status != "error" || res.Error != "model exploded" {
		t.Fatalf("provider error: %+v", res)
	}
	// Follow-ups are written in the transaction that ends the run: once
	// it has ended, an announce would already exist.
	if r := waitRunEnd(t, h, res.RunID); r.Status != domain.RunError {
		t.Fatalf("failed send run = %+v", r)
	}
	if f := followUpsOf(t, h, res.RunID); len(f) != 0 {
		t.Fatalf("a failed run started %d follow-ups, the first a %s run", len(f), f[0].Kind)
	}
	if n := len(runsOf(h, "agent:main:broken", domain.RunKindAnnounce)); n != 0 {
		t.Fatalf("announce after failed run: %d runs", n)
	}
	out := h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:main:discord:group:123","message":"hi"}`)
	res = sendResult(t, out)
	if res.Status != "error" || res.Error != "send blocked by session policy" || !out.IsError {
		t.Fatalf("policy deny: %+v", res)
	}
	if _, err := h.e.sessions.Patch(t.Context(), "research", api.PatchRequest{SendPolicy: api.SetValue("deny")}); err != nil {
		t.Fatal(err)
	}
	res = sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"research","message":"hi"}`))
	if res.Status != "error" || res.Error != "send blocked by session policy" {
		t.Fatalf("session override deny: %+v", res)
	}
}

func TestSendBadInput(t *testing.T) {
	h := newHarness(t, nil, agentVisibility)
	long := strings.Repeat("x", int(api.MessageChars.Max)+1)
	cases := []struct {
		args string
		want string
	}{
		{`{"sessionKey":"research"}`, "message required"},
		{`{"sessionKey":"research","message":""}`, "message required"},
		{`{"sessionKey":"research","message":42}`, "message must be a string"},
		{`{"sessionKey":"research","label":"x","message":"hi"}`, "Provide either sessionKey or label (not both)."},
		{`{"message":"hi"}`, "Either sessionKey or label is required"},
		{`{"sessionKey":"research","message":"hi","timeoutSeconds":-1}`, "timeoutSeconds must be at least 0"},
		{`{"sessionKey":"research","message":"hi","timeoutSeconds":"soon"}`, "timeoutSeconds must be a number"},
		{`{"sessionKey":"research","message":"hi","timeoutSeconds":1.5}`, "timeoutSeconds must be a whole number"},
		{`{"sessionKey":"research","message":"` + long + `"}`, "message is too long"},
		{`{"sessionKey":"research","message":"hi","bogus":1}`, `unknown parameter "bogus"`},
		{`{"sessionKey":"agent:Bad Id:x","message":"hi"}`, "agent"},
		{`{"sessionKey":"agent:ghost:main","message":"hi"}`, `unknown agent id "ghost"`},
		{`{"label":"nobody","message":"hi"}`, "No session found with label: nobody"},
		{`[1,2]`, "arguments must be a JSON object"},
	}
	for _, c := range cases {
		out := h.call(Requester{}, api.ToolSessionsSend, c.args)
		b := errorOf(out)
		if !out.IsError || !strings.Contains(b, c.want) {
			t.Errorf("args %.60s: isError=%v payload=%s, want error containing %q", c.args, out.IsError, b, c.want)
		}
	}
}

// errorOf returns the error text of an error outcome.
func errorOf(out api.ToolOutcome) string {
	var p struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(out.JSON(), &p)
	return p.Error
}

func TestSendLoopSafety(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^start$"}, "sessions_send",
			map[string]any{"sessionKey": research, "message": "bounce"}),
		// research tries to send straight back into main (a loop).
		toolCall(config.ScriptWhen{Session: "research$", Role: "user", Message: "^bounce$"}, "sessions_send",
			map[string]any{"sessionKey": "agent:main:main", "message": "loop", "timeoutSeconds": 0}),
		rule(config.ScriptWhen{System: "Agent-to-agent (reply|announce) step:"}, "REPLY_SKIP"),
	}, agentVisibility)
	h.chat("main", "start")
	runs := runsOf(h, research, domain.RunKindSend)
	if len(runs) != 1 {
		t.Fatalf("send runs = %d", len(runs))
	}
	if !strings.Contains(runs[0].Reply, "already part of this chain") {
		t.Fatalf("research's tool result (its reply) = %q, want a loop refusal", runs[0].Reply)
	}
}

func mustSpec(t *testing.T, r domain.Run) runspec.Spec {
	t.Helper()
	s, err := runspec.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
