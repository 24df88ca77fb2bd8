package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// A chat message names its channel: built-in and configured channels are
// accepted (case-insensitively; "last" is the session's last channel), any
// other name is refused with OpenClaw's `unknown channel: <c>` before
// anything is written, marked so the `agent` method can prefix it.
func TestChatChannelIsValidated(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) {
		c.Channels.Webhook = map[string]config.WebhookChannel{"ops": {URL: "http://127.0.0.1:1/hook"}}
	})
	ctx := context.Background()
	op := api.Operator()
	for _, tc := range []struct {
		key, channel, want string
	}{
		{"agent:main:a", "", "webchat"},
		{"agent:main:b", "Telegram", "telegram"},
		{"agent:main:c", "ops", "ops"},
		{"agent:main:d", "internal", "internal"},
		{"agent:main:b", "last", "telegram"},
		{"agent:main:e", "last", "webchat"},
	} {
		res, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: tc.key, Message: "hi", Channel: tc.channel})
		if err != nil {
			t.Fatalf("chat %s on %q: %v", tc.key, tc.channel, err)
		}
		if _, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		s, err := h.st.GetSession(ctx, tc.key)
		if err != nil || s.LastChannel != tc.want {
			t.Errorf("chat %s on %q: lastChannel = %q, %v; want %q", tc.key, tc.channel, s.LastChannel, err, tc.want)
		}
	}
	_, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:f", Message: "hi", Channel: "bogusnet"})
	if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != "unknown channel: bogusnet" ||
		err.Error() != "unknown channel: bogusnet" || !errors.Is(err, api.ErrRunRequest) {
		t.Fatalf("chat on bogusnet: err = %v (code %s); want invalid %q marked ErrRunRequest", err, domain.ErrorCode(err), "unknown channel: bogusnet")
	}
	if _, err := h.st.GetSession(ctx, "agent:main:f"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a refused chat created its session: %v", err)
	}
	// The refusal of an unknown agent's key is marked too; a policy block is not.
	_, err = h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:ghost:main", Message: "hi"})
	if !errors.Is(err, api.ErrRunRequest) || domain.ErrorCode(err) != domain.CodeInvalid {
		t.Errorf("chat to an unknown agent: err = %v, want invalid marked ErrRunRequest", err)
	}
}

// Thinking levels are compared as OpenClaw normalizes them: case and
// spacing do not matter and its aliases map to a level, on chat, spawn and
// patch alike; what is no level is still refused.
func TestThinkingLevelIsNormalized(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	op := api.Operator()
	res, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:t", Message: "hi", Thinking: " High ", IdempotencyKey: "k"})
	if err != nil {
		t.Fatalf("chat with thinking High: %v", err)
	}
	// The same work spelled "high" is the same run, not a conflict: the
	// level is normalized before the request is fingerprinted.
	again, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:t", Message: "hi", Thinking: "high", IdempotencyKey: "k"})
	if err != nil || again.Run.ID != res.Run.ID {
		t.Fatalf("chat retried with thinking high = %+v, %v; want run %s", again.Run, err, res.Run.ID)
	}
	if _, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	s, err := h.e.Patch(ctx, op, api.PatchRequest{Key: "agent:main:t", ThinkingLevel: api.SetValue("MED")})
	if err != nil || s.ThinkingLevel != "medium" {
		t.Fatalf("patch thinkingLevel MED = %q, %v; want medium", s.ThinkingLevel, err)
	}
	if _, err := h.e.Patch(ctx, op, api.PatchRequest{Key: "agent:main:t", ThinkingLevel: api.SetValue("Huge")}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("patch thinkingLevel Huge: err = %v, want invalid", err)
	}
	if _, err := h.e.Spawn(ctx, op, api.SpawnRequest{Task: "t", Thinking: "On"}); err != nil {
		t.Fatalf("spawn with thinking On: %v", err)
	}
}

// "/new <text>" (and "/reset <text>") starts a fresh sessionId and runs the
// text in it (openclaw-notes §6.3 `agent`; OpenClaw passes the remainder
// through); a retry with the same idempotency key answers the first run and
// resets nothing.
func TestResetTriggerPassesTheRemainderThrough(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	h.chat("agent:main:r", "before")
	first, err := h.e.Session(ctx, "agent:main:r")
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "agent:main:r", Message: "/new  tell me", IdempotencyKey: "n1"})
	if err != nil || res.Command != "" {
		t.Fatalf("/new tell me = %+v, %v; want a run", res, err)
	}
	r, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second)
	if err != nil || r.Reply != "echo: tell me" {
		t.Fatalf("run after /new = %+v, %v; want the reply to the remainder", r, err)
	}
	second, _ := h.e.Session(ctx, "agent:main:r")
	if second.SessionID == first.SessionID {
		t.Fatalf("/new tell me kept sessionId %s", first.SessionID)
	}
	if msgs := h.history("agent:main:r"); len(msgs) != 2 || msgs[0].Content.Text() != "tell me" {
		t.Fatalf("new transcript = %+v; want the remainder and its reply", msgs)
	}
	again, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "agent:main:r", Message: "/new  tell me", IdempotencyKey: "n1"})
	if err != nil || again.Run.ID != res.Run.ID {
		t.Fatalf("retried /new tell me = %+v, %v; want run %s", again.Run, err, res.Run.ID)
	}
	if third, _ := h.e.Session(ctx, "agent:main:r"); third.SessionID != second.SessionID {
		t.Fatalf("a retried /new reset again (%s → %s)", second.SessionID, third.SessionID)
	}
}
