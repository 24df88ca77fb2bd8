package engine

import (
	"context"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Out of the box (no script rules) a send is answered, the announce step
// stays silent, and the step prompts switchboard wrote carry a2a_step
// provenance, not the sender's.
func TestSendOutOfTheBoxAnnouncesNothingAndMarksStepPrompts(t *testing.T) {
	h := newHarness(t, nil, agentVisibility)
	ctx := context.Background()
	res, err := h.e.Send(ctx, api.Operator(), api.SendRequest{SessionKey: research, Message: "hello"})
	if err != nil || res.Status != "ok" || res.Reply != "echo: hello" {
		t.Fatalf("send = %+v, %v", res, err)
	}
	h.waitFor("announce step ran", func() bool {
		runs := runsOf(h, research, domain.RunKindAnnounce)
		return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
	})
	if ann := runsOf(h, research, domain.RunKindAnnounce)[0]; ann.Reply != domain.AnnounceSkip {
		t.Fatalf("announce step replied %q, want %s", ann.Reply, domain.AnnounceSkip)
	}
	if items := outboxOf(h, domain.OutboxAnnounce); len(items) != 0 {
		t.Fatalf("announce deliveries = %+v, want none", items)
	}
	msgs := h.history(research)
	var step *domain.Message
	for i := range msgs {
		if msgs[i].Role == domain.RoleUser && msgs[i].Content.Text() == domain.A2AAnnounceText {
			step = &msgs[i]
		}
	}
	if step == nil {
		t.Fatalf("no announce step prompt in %q", texts(msgs))
	}
	want := domain.Provenance{Kind: domain.ProvenanceA2AStep, Step: domain.A2AStepAnnounce, SourceSessionKey: "agent:main:main"}
	if p := step.Provenance; p == nil || p.Kind != want.Kind || p.Step != want.Step || p.SourceSessionKey != want.SourceSessionKey {
		t.Fatalf("announce step provenance = %+v, want %+v", p, want)
	}
	if p := msgs[0].Provenance; p == nil || p.Kind != domain.ProvenanceInterSession {
		t.Fatalf("the sent message's provenance = %+v, want inter_session", p)
	}
}

// A reply-back turn's user message is marked as a step (on the requester,
// its source is the target), and with no rule the turn ends the exchange
// with REPLY_SKIP.
func TestReplyBackTurnIsAStepAndSkipsByDefault(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^ask research (.*)$"}, "sessions_send",
			map[string]any{"sessionKey": research, "message": "$1"}),
	}, agentVisibility)
	if r := h.chat("main", "ask research about tides"); r.Status != domain.RunOK {
		t.Fatalf("main run = %s %s", r.Status, r.Error)
	}
	h.waitFor("announce step ran", func() bool {
		runs := runsOf(h, research, domain.RunKindAnnounce)
		return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
	})
	turns := runsOf(h, "agent:main:main", domain.RunKindReply)
	if len(turns) != 1 || turns[0].Reply != domain.ReplySkip {
		t.Fatalf("reply turns = %+v, want one that replied %s", turns, domain.ReplySkip)
	}
	if n := len(runsOf(h, research, domain.RunKindReply)); n != 0 {
		t.Fatalf("target reply turns after REPLY_SKIP = %d", n)
	}
	var prompt *domain.Message
	for _, m := range h.history("main") {
		if m.RunID == turns[0].ID && m.Role == domain.RoleUser {
			prompt = &m
		}
	}
	if prompt == nil || prompt.Content.Text() != "echo: about tides" {
		t.Fatalf("reply turn prompt = %+v", prompt)
	}
	if p := prompt.Provenance; p == nil || p.Kind != domain.ProvenanceA2AStep || p.Step != domain.A2AStepReply || p.SourceSessionKey != research {
		t.Fatalf("reply turn provenance = %+v", p)
	}
	if items := outboxOf(h, domain.OutboxAnnounce); len(items) != 0 {
		t.Fatalf("announce deliveries = %+v, want none", items)
	}
}
