package engine

import (
	"context"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestIdempotencyKeysAreScopedAndBoundToTheirParameters(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Session: "research$", Message: "^find (.*)$"}, "found $1"),
	}, agentVisibility)
	ctx := context.Background()
	alice := api.Principal{Name: "alice", Scopes: api.AllScopes}
	bob := api.Principal{Name: "bob", Scopes: api.AllScopes}
	send := func(p api.Principal, msg string, timeout int) (api.SendResult, error) {
		return h.e.Send(ctx, p, api.SendRequest{SessionKey: research, Message: msg, IdempotencyKey: "k1", TimeoutSeconds: &timeout})
	}

	a, err := send(alice, "find cats", 10)
	if err != nil || a.Status != "ok" || a.Reply != "found cats" {
		t.Fatalf("alice: %+v, %v", a, err)
	}
	b, err := send(bob, "find dogs", 10)
	if err != nil || b.Status != "ok" || b.Reply != "found dogs" {
		t.Fatalf("bob with alice's key: %+v, %v (want its own run and reply)", b, err)
	}
	if a.RunID == b.RunID {
		t.Fatalf("two principals share run %s", a.RunID)
	}

	// The same principal, the same key, another message: a conflict.
	_, err = send(alice, "find birds", 10)
	if domain.ErrorCode(err) != domain.CodeConflict || domain.ErrorMessage(err) != api.ErrIdempotencyConflict {
		t.Fatalf("reused key with another message: err = %v (code %s), want conflict %q", err, domain.ErrorCode(err), api.ErrIdempotencyConflict)
	}
	// A retry with the same parameters (another timeout is the same work)
	// gets the first run and its reply.
	again, err := send(alice, "find cats", 5)
	if err != nil || again.RunID != a.RunID || again.Reply != "found cats" {
		t.Fatalf("retry: %+v, %v; want run %s", again, err, a.RunID)
	}
	if n := len(runsOf(h, research, domain.RunKindSend)); n != 2 {
		t.Fatalf("send runs = %d, want 2", n)
	}

	// Spawn: the same rules.
	timeout := 60
	s1, err := h.e.Spawn(ctx, alice, api.SpawnRequest{Task: "write a haiku", IdempotencyKey: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := h.e.Spawn(ctx, alice, api.SpawnRequest{Task: "write a haiku", IdempotencyKey: "s1", RunTimeoutSeconds: &timeout})
	if err != nil || s2.RunID != s1.RunID || s2.ChildSessionKey != s1.ChildSessionKey {
		t.Fatalf("spawn retry = %+v, %v; want %+v", s2, err, s1)
	}
	if _, err := h.e.Spawn(ctx, alice, api.SpawnRequest{Task: "write a sonnet", IdempotencyKey: "s1"}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("spawn with reused key and another task: err = %v, want conflict", err)
	}
	s3, err := h.e.Spawn(ctx, bob, api.SpawnRequest{Task: "write a sonnet", IdempotencyKey: "s1"})
	if err != nil || s3.RunID == s1.RunID {
		t.Fatalf("bob's spawn with alice's key = %+v, %v; want its own run", s3, err)
	}

	// Chat: the same rules.
	c1, err := h.e.Chat(ctx, alice, api.ChatRequest{SessionKey: "main", Message: "hello", IdempotencyKey: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := h.e.Chat(ctx, alice, api.ChatRequest{SessionKey: "main", Message: "hello", IdempotencyKey: "c1"})
	if err != nil || c2.Run.ID != c1.Run.ID {
		t.Fatalf("chat retry = %+v, %v; want run %s", c2.Run, err, c1.Run.ID)
	}
	if _, err := h.e.Chat(ctx, alice, api.ChatRequest{SessionKey: "main", Message: "goodbye", IdempotencyKey: "c1"}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("chat with reused key and another message: err = %v, want conflict", err)
	}
	// Every chat surface is one operation: the key of a WS `agent` call
	// (a run of kind agent) names the same work on chat.send / HTTP chat.
	a1, err := h.e.Chat(ctx, alice, api.ChatRequest{SessionKey: "main", Message: "via agent", IdempotencyKey: "a1", Kind: domain.RunKindAgent})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := h.e.Chat(ctx, alice, api.ChatRequest{SessionKey: "main", Message: "via agent", IdempotencyKey: "a1", Channel: "webchat"})
	if err != nil || a2.Run.ID != a1.Run.ID || a2.Created {
		t.Fatalf("chat.send after agent with one key = %+v, %v; want run %s again", a2.Run, err, a1.Run.ID)
	}
	if _, err := h.e.Chat(ctx, alice, api.ChatRequest{SessionKey: "main", Message: "other", IdempotencyKey: "a1", Kind: domain.RunKindAgent}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("agent reusing a chat key with another message: err = %v, want conflict", err)
	}
}
