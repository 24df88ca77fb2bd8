package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// A chat message's delivery hints (docs/gateway.md: chatType, displayName,
// to, accountId, threadId) are recorded on its session row, where
// sessions.list shows them and replies find their way back; a later
// message without hints keeps them, one with other hints replaces them.
func TestChatRecordsDeliveryHintsOnTheSession(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	ctx := context.Background()
	const key = "agent:main:room"
	send := func(req api.ChatRequest) {
		t.Helper()
		req.SessionKey = key
		res, err := h.e.chat(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	send(api.ChatRequest{Message: "hello", ChatType: "group", DisplayName: " Ops room ", To: "room-1", AccountID: "acct", ThreadID: "t1"})
	s, err := h.st.GetSession(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.DeliveryContext{Channel: s.LastChannel, To: "room-1", AccountID: "acct", ThreadID: "t1"}
	if s.ChatType != "group" || s.DisplayName != "Ops room" || s.LastTo != "room-1" || s.LastAccount != "acct" ||
		s.Delivery == nil || *s.Delivery != want || s.Origin == nil || s.Origin.AccountID != "acct" {
		t.Fatalf("session after a message with hints = chatType %q displayName %q lastTo %q lastAccount %q delivery %+v origin %+v",
			s.ChatType, s.DisplayName, s.LastTo, s.LastAccount, s.Delivery, s.Origin)
	}

	send(api.ChatRequest{Message: "no hints"})
	again, _ := h.st.GetSession(ctx, key)
	if again.ChatType != "group" || again.DisplayName != "Ops room" || again.Delivery == nil || *again.Delivery != want {
		t.Fatalf("a message without hints changed them: %+v %q %+v", again.ChatType, again.DisplayName, again.Delivery)
	}

	send(api.ChatRequest{Message: "moved", DisplayName: "Ops room 2", To: "room-2", AccountID: "acct2"})
	moved, _ := h.st.GetSession(ctx, key)
	if moved.DisplayName != "Ops room 2" || moved.LastTo != "room-2" || moved.LastAccount != "acct2" ||
		moved.Delivery == nil || moved.Delivery.To != "room-2" || moved.Delivery.ThreadID != "" {
		t.Fatalf("new hints = %q %q %q %+v, want them recorded", moved.DisplayName, moved.LastTo, moved.LastAccount, moved.Delivery)
	}
	if moved.Origin == nil || moved.Origin.AccountID != "acct" {
		t.Fatalf("origin = %+v, want the first message's", moved.Origin)
	}
}

// A chat naming a model its providers cannot resolve, a thinking level
// its model does not support, or a timeout out of range is refused
// before anything is recorded.
func TestChatRefusesModelThinkingAndTimeoutItCannotHonour(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  api.ChatRequest
		want string
	}{
		{"unknown model", api.ChatRequest{Message: "hi", Model: "nowhere/none"}, `unknown model "nowhere/none"`},
		{"thinking the model lacks", api.ChatRequest{Message: "hi", Model: "other/model", Thinking: "high"}, `does not support thinking level "high"`},
		{"timeout over its limit", api.ChatRequest{Message: "hi", TimeoutSeconds: 1 << 30}, "timeout"},
		{"negative timeout", api.ChatRequest{Message: "hi", TimeoutSeconds: -1}, "timeout"},
	} {
		tc.req.SessionKey = "agent:main:picky"
		_, err := h.e.Chat(ctx, api.Operator(), tc.req)
		if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %v, want invalid mentioning %q", tc.name, err, tc.want)
		}
	}
	if runs, err := h.st.ListRuns(ctx, domain.RunQuery{}); err != nil || len(runs) != 0 {
		t.Fatalf("runs after the refusals = %d, %v; want none", len(runs), err)
	}
	if _, err := h.st.GetSession(ctx, "agent:main:picky"); err == nil {
		t.Fatal("a refused chat created its session")
	}
}
