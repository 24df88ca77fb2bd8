package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Input over a limit of docs/design.md#limits is refused at the gate,
// naming the field and the limit, before anything is recorded: the
// idempotency key of every operation that takes one, session_status's
// model and session key, sessions_yield's message.
func TestGateRefusesInputOverItsLimitBeforeRecording(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	ctx := context.Background()
	h.chat("agent:main:main", "hello")
	before, err := h.st.GetSession(ctx, "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	op := api.Operator()
	main := api.Principal{Name: "t", Scopes: api.AllScopes, As: "main"}
	longKey := strings.Repeat("k", 257)
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"chat idempotencyKey", func() error {
			_, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:main", Message: "hi", IdempotencyKey: longKey})
			return err
		}, "idempotencyKey is too long (257 characters; max 256)"},
		{"chat idempotencyKey with a NUL", func() error {
			_, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:main", Message: "hi", IdempotencyKey: "a\x00b"})
			return err
		}, "idempotencyKey must not contain null bytes"},
		{"send idempotencyKey", func() error {
			_, err := h.e.Send(ctx, main, api.SendRequest{SessionKey: "agent:main:other", Message: "hi", IdempotencyKey: longKey})
			return err
		}, "idempotencyKey is too long (257 characters; max 256)"},
		{"spawn idempotencyKey", func() error {
			_, err := h.e.Spawn(ctx, main, api.SpawnRequest{Task: "work", IdempotencyKey: longKey})
			return err
		}, "idempotencyKey is too long (257 characters; max 256)"},
		{"deliver idempotencyKey", func() error {
			_, err := h.e.Deliver(ctx, op, api.DeliverRequest{SessionKey: "agent:main:main", Message: "hi", IdempotencyKey: longKey})
			return err
		}, "idempotencyKey is too long (257 characters; max 256)"},
		{"session_status blank model", func() error {
			_, err := h.e.SessionStatus(ctx, op, api.StatusRequest{SessionKey: "agent:main:main", Model: "   "})
			return err
		}, "model must not be blank"},
		{"session_status model over 256", func() error {
			_, err := h.e.SessionStatus(ctx, op, api.StatusRequest{SessionKey: "agent:main:main", Model: strings.Repeat("m", 257)})
			return err
		}, "model is too long (257 characters; max 256)"},
		{"session_status sessionKey over 512", func() error {
			_, err := h.e.SessionStatus(ctx, op, api.StatusRequest{SessionKey: strings.Repeat("s", 513)})
			return err
		}, "sessionKey is too long (513 characters; max 512)"},
		{"sessions_yield message over 4000", func() error {
			_, err := h.e.Yield(ctx, main, api.YieldRequest{Message: strings.Repeat("y", 4001)})
			return err
		}, "message is too long (4001 characters; max 4000)"},
	}
	for _, tc := range cases {
		err := tc.call()
		if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %v, want invalid %q", tc.name, err, tc.want)
		}
	}
	runs, err := h.st.ListRuns(ctx, domain.RunQuery{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs after the refusals = %d, %v; want only the first chat's", len(runs), err)
	}
	sessions, err := h.st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions after the refusals = %d, %v; want only agent:main:main", len(sessions), err)
	}
	if s, _ := h.st.GetSession(ctx, "agent:main:main"); s.Model != before.Model {
		t.Fatalf("a refused model switch changed the session's model to %q", s.Model)
	}
	if items, _ := h.st.ListOutbox(ctx, domain.OutboxQuery{}); len(items) != 0 {
		t.Fatalf("a refused deliver queued %d outbox items", len(items))
	}
}
