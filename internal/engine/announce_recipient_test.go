package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestAnnouncesReachTheirConversation: a sessions_send announce is posted to
// the target's recipient on the target's channel (OpenClaw's announce step), and
// the requester's answer to a sub-agent's announce is delivered to the
// requester's external channel and recipient when it has both.
func TestAnnouncesReachTheirConversation(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// before are chats that give the session its channel and recipient.
		before              []api.ChatRequest
		spawn               bool
		wantChannel, wantTo string
		wantNoDelivery      bool
	}{
		{name: "send: the target's recipient on its channel",
			before:      []api.ChatRequest{{Message: "hello", Channel: "telegram", To: "42"}},
			wantChannel: "telegram", wantTo: "42"},
		{name: "send: a later recipient on the same channel wins",
			before:      []api.ChatRequest{{Message: "hello", Channel: "telegram", To: "42"}, {Message: "again", Channel: "telegram", To: "43"}},
			wantChannel: "telegram", wantTo: "43"},
		{name: "send: a webchat target has no recipient",
			before:      []api.ChatRequest{{Message: "hello"}},
			wantChannel: "webchat", wantTo: ""},
		{name: "spawn: the requester's answer goes to its channel and recipient",
			spawn:       true,
			before:      []api.ChatRequest{{Message: "hello", Channel: "telegram", To: "7"}},
			wantChannel: "telegram", wantTo: "7"},
		{name: "spawn: a webchat requester's answer stays in its transcript",
			spawn: true, before: []api.ChatRequest{{Message: "hello"}}, wantNoDelivery: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, []config.ScriptRule{
				rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "announcing"),
				rule(config.ScriptWhen{Session: ":subagent:"}, "child result"),
			}, agentVisibility)
			key := "agent:main:peer"
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
			if !tc.spawn {
				res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"`+key+`","message":"ping"}`))
				if res.Status != "ok" {
					t.Fatalf("send = %+v", res)
				}
				h.waitFor("announce queued", func() bool { return len(outboxOf(h, domain.OutboxAnnounce)) == 1 })
				it := outboxOf(h, domain.OutboxAnnounce)[0]
				if it.Channel != tc.wantChannel || it.To != tc.wantTo || it.SessionKey != key {
					t.Errorf("announce item = %s %s→%q, want %s→%q", it.SessionKey, it.Channel, it.To, tc.wantChannel, tc.wantTo)
				}
				return
			}
			out := h.call(Requester{SessionKey: key}, api.ToolSessionsSpawn, `{"task":"work"}`)
			if out.IsError {
				t.Fatalf("spawn: %s", out.JSON())
			}
			// The requester's turn on the announce ends, then its delivery
			// (if any) is in the outbox with that run.
			h.waitFor("announce turn ended", func() bool {
				for _, r := range runsOf(h, key, domain.RunKindInbound) {
					if domain.RunTerminal(r.Status) {
						return true
					}
				}
				return false
			})
			inbound := runsOf(h, key, domain.RunKindInbound)[0]
			var got []domain.OutboxItem
			for _, it := range outboxOf(h, domain.OutboxDelivery) {
				if it.RunID == inbound.ID {
					got = append(got, it)
				}
			}
			if tc.wantNoDelivery {
				if len(got) != 0 {
					t.Fatalf("deliveries = %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("deliveries of the announce turn = %+v, want one", got)
			}
			var p struct{ Text string }
			_ = json.Unmarshal(got[0].Payload, &p)
			if got[0].Channel != tc.wantChannel || got[0].To != tc.wantTo || p.Text == "" {
				t.Errorf("delivery = %s→%q %q, want %s→%q and the answer", got[0].Channel, got[0].To, p.Text, tc.wantChannel, tc.wantTo)
			}
		})
	}
}
