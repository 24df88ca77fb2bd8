package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestFirstMessagesAtOnceMakeOneSession proves several first messages to
// a key that has no session yet make one session: every turn runs in the
// one generation, and the transcript holds each message and its reply.
func TestFirstMessagesAtOnceMakeOneSession(t *testing.T) {
	const n = 10
	const key = "agent:main:fresh"
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	res := make([]api.ChatResult, n)
	errs := make([]error, n)
	atOnce(n, func(i int) {
		res[i], errs[i] = h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: fmt.Sprintf("hello %d", i)})
	})
	s, err := h.st.GetSession(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("message %d: %v", i, errs[i])
		}
		r, err := h.e.waitRun(ctx, res[i].Run.ID, 10*time.Second)
		if err != nil || r.Status != domain.RunOK {
			t.Fatalf("message %d: run %+v, %v; want ok", i, r, err)
		}
		if r.SessionID != s.SessionID {
			t.Fatalf("message %d ran in generation %s, the session is %s", i, r.SessionID, s.SessionID)
		}
	}
	msgs, err := h.st.ReadMessages(ctx, key, domain.MessageQuery{SessionID: s.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2*n {
		t.Fatalf("%d messages in the one generation, want %d (each message and its reply)", len(msgs), 2*n)
	}
}
