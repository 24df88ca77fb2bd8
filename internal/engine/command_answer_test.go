package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// A chat command's answer goes to the chat it came from when the chat
// delivers, past the send policy: `/send off` is confirmed in the chat it
// muted, a redelivered command answers once, and a chat that does not
// deliver gets the answer in its result only.
func TestCommandAnswerDelivered(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Session.Owners = []string{"ada"} })
	ctx := context.Background()
	const key = "agent:main:telegram:group:-7"
	chat := func(msg, idem string, deliver bool) api.ChatResult {
		t.Helper()
		res, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: msg, Channel: "telegram",
			SenderID: "ada", To: "telegram:-7", ReplyChannel: "telegram", ReplyTo: "telegram:-7", Deliver: deliver, IdempotencyKey: idem})
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		return res
	}
	answers := func() []string {
		t.Helper()
		items, err := h.st.ListOutbox(ctx, domain.OutboxQuery{SessionKey: key})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range items {
			var p struct{ Text string }
			_ = json.Unmarshal(it.Payload, &p)
			if it.Kind == domain.OutboxDelivery && it.RunID == "" {
				if it.Channel != "telegram" || it.To != "telegram:-7" {
					t.Errorf("answer %q queued to %s %s", p.Text, it.Channel, it.To)
				}
				out = append(out, p.Text)
			}
		}
		return out
	}
	if res := chat("/send off", "ev-1", true); res.Command != "send" || res.Reply != "⚙️ Send policy set to off." {
		t.Fatalf("/send off = %+v", res)
	}
	chat("/send off", "ev-1", true) // the provider delivered the message again
	if got := answers(); len(got) != 1 || got[0] != "⚙️ Send policy set to off." {
		t.Fatalf("answers = %q, want the one /send off confirmation", got)
	}
	// The outbox's own check at delivery lets the answer out, not a reply.
	items, _ := h.st.ListOutbox(ctx, domain.OutboxQuery{SessionKey: key})
	if err := h.e.checkSendPolicy(ctx, items[0]); err != nil {
		t.Fatalf("the answer is held at delivery: %v", err)
	}
	reply := items[0]
	reply.IdempotencyKey, reply.RunID = "deliver:r1", "r1"
	if err := h.e.checkSendPolicy(ctx, reply); err == nil {
		t.Fatal("a reply into the muted session passed the delivery check")
	}
	// The policy it set still refuses the agent's turns and direct sends.
	if _, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: "hello", Channel: "telegram", Deliver: true, ReplyTo: "telegram:-7"}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("a chat in the muted session: %v, want refused", err)
	}
	if _, err := h.e.Deliver(ctx, api.Operator(), api.DeliverRequest{SessionKey: key, Channel: "telegram", To: "telegram:-7", Message: "direct"}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("a direct send into the muted session: %v, want refused", err)
	}
	chat("/send", "ev-2", false)
	if got := answers(); len(got) != 1 {
		t.Fatalf("a chat that does not deliver queued its answer: %q", got)
	}
	chat("/send inherit", "ev-3", true)
	if got := answers(); len(got) != 2 || got[1] != "⚙️ Send policy set to inherit." {
		t.Fatalf("answers = %q", got)
	}
}
