package engine

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestChatParent: under tree visibility a requester may open a session by
// chat only as a child of its own session (api.ChatRequest.Parent); the
// session is created spawned by it, one level deeper, and a parent other
// than the requester's own session is refused.
func TestChatParent(t *testing.T) {
	h := newHarness(t, nil, nil)
	p := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:alice"}
	ctx := t.Context()
	if _, err := h.e.Chat(ctx, p, api.ChatRequest{SessionKey: "agent:main:a2a:x", Message: "hi"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("chat outside the tree without a parent: %v, want forbidden", err)
	}
	_, err := h.e.Chat(ctx, p, api.ChatRequest{SessionKey: "agent:main:a2a:y", Message: "hi", Parent: "agent:main:bob"})
	if domain.ErrorCode(err) != domain.CodeForbidden || !strings.Contains(err.Error(), "requester's own session") {
		t.Fatalf("chat under another parent: %v, want forbidden", err)
	}
	res, err := h.e.Chat(ctx, p, api.ChatRequest{SessionKey: "agent:main:a2a:z", Message: "hi", Parent: "agent:main:alice"})
	if err != nil {
		t.Fatalf("chat under its own session: %v", err)
	}
	s, err := h.st.GetSession(ctx, res.SessionKey)
	if err != nil || s.SpawnedBy != "agent:main:alice" || s.SpawnDepth != 1 {
		t.Fatalf("session = %+v, %v; want spawnedBy agent:main:alice at depth 1", s, err)
	}
	if _, err := h.e.Chat(ctx, p, api.ChatRequest{SessionKey: "agent:main:a2a:z", Message: "again", Parent: "agent:main:alice"}); err != nil {
		t.Fatalf("a second chat into the child: %v", err)
	}
}
