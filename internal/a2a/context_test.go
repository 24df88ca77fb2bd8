package a2a

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// TestContextSessionKeys: contextIds differing only in case map to
// different canonical session keys, a lower-case one keeps the key it
// always had, and ContextOf gives back the contextId exactly.
func TestContextSessionKeys(t *testing.T) {
	tests := []struct{ ctx, key string }{
		{"abc", "agent:main:a2a:abc"},
		{"6f1c2d1e-5a0b-4c8e-9d7a-2b3c4d5e6f70", "agent:main:a2a:6f1c2d1e-5a0b-4c8e-9d7a-2b3c4d5e6f70"},
		{"ABC", "agent:main:a2a:~a~b~c"},
		{"AbC", "agent:main:a2a:~ab~c"},
		{"x.Y_z-9", "agent:main:a2a:x.~y_z-9"},
		{strings.Repeat("Z", MaxContextIDChars), "agent:main:a2a:" + strings.Repeat("~z", MaxContextIDChars)},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		key := SessionKey("Main", tt.ctx)
		if key != tt.key {
			t.Errorf("SessionKey(%q) = %q, want %q", tt.ctx, key, tt.key)
		}
		if !sessionkey.IsCanonical(key) || checkSessionKey(key) != nil {
			t.Errorf("SessionKey(%q) = %q is not a canonical key the engine takes", tt.ctx, key)
		}
		if got := ContextOf(key); got != tt.ctx {
			t.Errorf("ContextOf(%q) = %q, want %q", key, got, tt.ctx)
		}
		if other, dup := seen[key]; dup {
			t.Errorf("contextIds %q and %q share %q", other, tt.ctx, key)
		}
		seen[key] = tt.ctx
	}
	if got := ContextOf("agent:main:main"); got != "agent:main:main" {
		t.Errorf("ContextOf of a non-A2A key = %q", got)
	}
}

// TestContextIDsAreCaseSensitive: messages in contexts "ABC" and "abc"
// land in two sessions, each answer names its own contextId, and a task of
// one is not continued under the other's id.
func TestContextIDsAreCaseSensitive(t *testing.T) {
	h := newHarness(t)
	send := func(msgID, ctxID, text string) *wire.Task {
		t.Helper()
		r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg(msgID, ctxID, text)})
		if r.resp.Error != nil {
			t.Fatalf("SendMessage %s: %+v", ctxID, r.resp.Error)
		}
		task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
		if task == nil || task.ContextID != ctxID || task.Metadata["sessionKey"] != SessionKey("main", ctxID) {
			t.Fatalf("task in %q = %+v", ctxID, task)
		}
		return task
	}
	upper := send("c-1", "ABC", "upper")
	lower := send("c-2", "abc", "lower")
	if upper.Metadata["sessionKey"] == lower.Metadata["sessionKey"] {
		t.Fatalf("ABC and abc share session %v", upper.Metadata["sessionKey"])
	}
	again := send("c-3", "ABC", "upper again")
	if again.Metadata["sessionKey"] != upper.Metadata["sessionKey"] {
		t.Fatalf("a second message in ABC went to %v, not %v", again.Metadata["sessionKey"], upper.Metadata["sessionKey"])
	}
	got := h.rpc(t, "operator", "main", "GetTask", map[string]any{"id": upper.ID})
	if task := decode[wire.Task](t, got.resp.Result); task.ContextID != "ABC" {
		t.Fatalf("GetTask contextId = %q, want ABC", task.ContextID)
	}
	m := userMsg("c-4", "abc", "continue")
	m["taskId"] = upper.ID
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": m})
	if r.code() != wire.CodeInvalidParams || !strings.Contains(r.resp.Error.Message, "is not the context of task") {
		t.Fatalf("task of ABC under contextId abc: %+v", r.resp.Error)
	}
}
