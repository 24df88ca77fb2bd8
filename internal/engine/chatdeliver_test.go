package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestChatDeliver checks OpenClaw's `agent {deliver: true}`
// (docs/design.md#durability): the reply of the run is queued in the
// outbox, in the transaction that ends the run, for the channel and recipient the request
// names (else the session's last ones); with no external channel the
// request is refused before anything runs, unless best effort.
func TestChatDeliver(t *testing.T) {
	silent := []config.ScriptRule{rule(config.ScriptWhen{Message: "^hush$"}, domain.NoReply)}
	cases := []struct {
		name    string
		before  []api.ChatRequest // earlier messages into the session
		req     api.ChatRequest
		wantErr string
		// want is the delivery queued ("" channel: none).
		wantChannel, wantTo, wantText string
	}{
		{name: "no deliver", req: api.ChatRequest{Message: "hi", Channel: "telegram", To: "42"}},
		{name: "channel and to of the request",
			req:         api.ChatRequest{Message: "hi", Channel: "telegram", To: "42", Deliver: true},
			wantChannel: "telegram", wantTo: "42", wantText: "echo: hi"},
		{name: "replyChannel and replyTo win",
			req:         api.ChatRequest{Message: "hi", Channel: "telegram", To: "42", ReplyChannel: "Discord", ReplyTo: "chan-9", Deliver: true},
			wantChannel: "discord", wantTo: "chan-9", wantText: "echo: hi"},
		{name: "the session's last channel and recipient",
			before:      []api.ChatRequest{{Message: "earlier", Channel: "signal", To: "+100"}},
			req:         api.ChatRequest{Message: "again", Deliver: true},
			wantChannel: "signal", wantTo: "+100", wantText: "echo: again"},
		// channel "last" names the channel sessions_list shows as lastChannel (the
		// delivery context's), not the webchat a later message came on.
		{name: "channel last after a webchat message",
			before:      []api.ChatRequest{{Message: "earlier", Channel: "telegram", To: "42"}, {Message: "from the web"}},
			req:         api.ChatRequest{Message: "again", Channel: "last", Deliver: true},
			wantChannel: "telegram", wantTo: "42", wantText: "echo: again"},
		{name: "replyChannel last after a webchat message",
			before:      []api.ChatRequest{{Message: "earlier", Channel: "signal", To: "+100"}, {Message: "from the web"}},
			req:         api.ChatRequest{Message: "again", ReplyChannel: "LAST", Deliver: true},
			wantChannel: "signal", wantTo: "+100", wantText: "echo: again"},
		{name: "channel last without any external channel",
			before:  []api.ChatRequest{{Message: "from the web"}},
			req:     api.ChatRequest{Message: "again", Channel: "last", Deliver: true},
			wantErr: api.DeliveryChannelRequired},
		{name: "no external channel", req: api.ChatRequest{Message: "hi", Deliver: true}, wantErr: api.DeliveryChannelRequired},
		{name: "webchat is no external channel", req: api.ChatRequest{Message: "hi", Channel: "webchat", To: "me", Deliver: true},
			wantErr: "delivery channel is required"},
		{name: "best effort runs without delivery", req: api.ChatRequest{Message: "hi", Deliver: true, BestEffortDeliver: true}},
		{name: "unknown replyChannel", req: api.ChatRequest{Message: "hi", ReplyChannel: "carrier-pigeon", Deliver: true},
			wantErr: "unknown channel: carrier-pigeon"},
		// An external channel with no recipient is refused like one with no
		// channel, before anything is written, unless best effort; the
		// session's recipient on that channel fills in, as with "last".
		{name: "external channel without a recipient",
			req:     api.ChatRequest{Message: "hi", Channel: "telegram", Deliver: true},
			wantErr: "delivery recipient is required: pass to or replyTo, or use a session with a previous recipient on telegram"},
		{name: "best effort without a recipient runs without delivery",
			req: api.ChatRequest{Message: "hi", Channel: "telegram", Deliver: true, BestEffortDeliver: true}},
		{name: "the session's recipient on the request's channel",
			before:      []api.ChatRequest{{Message: "earlier", Channel: "telegram", To: "42"}},
			req:         api.ChatRequest{Message: "again", Channel: "telegram", Deliver: true},
			wantChannel: "telegram", wantTo: "42", wantText: "echo: again"},
		{name: "a recipient on another channel is not used",
			before:  []api.ChatRequest{{Message: "earlier", Channel: "signal", To: "+100"}},
			req:     api.ChatRequest{Message: "again", ReplyChannel: "discord", Deliver: true},
			wantErr: "delivery recipient is required"},
		{name: "channel last whose channel never had a recipient",
			before:  []api.ChatRequest{{Message: "earlier", Channel: "telegram"}},
			req:     api.ChatRequest{Message: "again", Channel: "last", Deliver: true},
			wantErr: "delivery recipient is required"},
		{name: "a silent reply delivers nothing", req: api.ChatRequest{Message: "hush", Channel: "telegram", To: "42", Deliver: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, silent, nil)
			ctx := context.Background()
			key := "agent:main:deliver"
			for _, b := range tc.before {
				b.SessionKey = key
				res, err := h.e.chat(ctx, b)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			req := tc.req
			req.SessionKey = key
			res, err := h.e.chat(ctx, req)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || domain.ErrorCode(err) != domain.CodeInvalid {
					t.Fatalf("chat = %+v, %v; want invalid %q", res.Run, err, tc.wantErr)
				}
				if runs, _ := h.st.ListRuns(ctx, domain.RunQuery{SessionKey: key}); len(runs) != 0 && tc.before == nil {
					t.Fatalf("a refused request started %d runs", len(runs))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			run, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second)
			if err != nil || run.Status != domain.RunOK {
				t.Fatalf("run = %+v, %v", run, err)
			}
			// The item is written with the run's end: no waiting.
			items, err := h.st.ListOutbox(ctx, domain.OutboxQuery{SessionKey: key})
			if err != nil {
				t.Fatal(err)
			}
			var got []domain.OutboxItem
			for _, it := range items {
				if it.RunID == run.ID {
					got = append(got, it)
				}
			}
			if tc.wantChannel == "" {
				if len(got) != 0 {
					t.Fatalf("deliveries = %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("deliveries of run %s = %+v, want one", run.ID, items)
			}
			it := got[0]
			var p struct{ Text string }
			_ = json.Unmarshal(it.Payload, &p)
			if it.Kind != domain.OutboxDelivery || it.Channel != tc.wantChannel || it.To != tc.wantTo || p.Text != tc.wantText {
				t.Errorf("delivery = %s %s→%s %q, want delivery %s→%s %q", it.Kind, it.Channel, it.To, p.Text, tc.wantChannel, tc.wantTo, tc.wantText)
			}
		})
	}
}

// TestChatDeliverToAnotherRecipientNeedsOperator: a write token bound to a
// session may have its reply delivered to the session's own recipient,
// but naming anyone else (to or replyTo, deliver or not) is a direct send,
// which needs operator rights; the operator still may.
func TestChatDeliverToAnotherRecipientNeedsOperator(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	const key = "agent:main:deliver"
	h.chat(key, "warm up")
	if _, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: "from the user", Channel: "telegram", To: "42"}); err != nil {
		t.Fatal(err)
	}
	h.e.Idle(ctx)
	bound := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: key}
	for _, r := range []api.ChatRequest{
		{Message: "hi", Channel: "telegram", To: "victim", Deliver: true},
		{Message: "hi", Channel: "telegram", ReplyTo: "victim", Deliver: true},
		{Message: "hi", ReplyChannel: "discord", ReplyTo: "chan-9", Deliver: true},
		{Message: "hi", Channel: "telegram", To: "victim"},
	} {
		r.SessionKey = key
		_, err := h.e.Chat(ctx, bound, r)
		if domain.ErrorCode(err) != domain.CodeForbidden || !strings.Contains(err.Error(), "needs operator rights") {
			t.Errorf("bound chat %+v = %v, want forbidden", r, err)
		}
	}
	items, err := h.st.ListOutbox(ctx, domain.OutboxQuery{SessionKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 0 {
		t.Fatalf("refused chats queued deliveries: %+v", items)
	}
	// The session's own recipient, named or not, is fine for the bound token.
	for _, r := range []api.ChatRequest{
		{Message: "own", Channel: "telegram", Deliver: true},
		{Message: "own named", Channel: "telegram", To: "42", Deliver: true},
	} {
		r.SessionKey = key
		if _, err := h.e.Chat(ctx, bound, r); err != nil {
			t.Errorf("bound chat to its own recipient %+v: %v", r, err)
		}
	}
	if _, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: "op", Channel: "telegram", To: "someone", Deliver: true}); err != nil {
		t.Errorf("operator chat to another recipient: %v", err)
	}
}
