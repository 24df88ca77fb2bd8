package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestChatRefusesOversizedHints: a chat's delivery hints are bounded; they
// were stored on the session row as sent, so one call with a 5 MB `to`
// made every listing of the session megabytes.
func TestChatRefusesOversizedHints(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	long := strings.Repeat("x", 513)
	tests := []struct {
		name string
		req  api.ChatRequest
		want string
	}{
		{"to", api.ChatRequest{Message: "hi", To: long}, "to is too long (513 characters; max 512)"},
		{"replyTo", api.ChatRequest{Message: "hi", ReplyTo: long}, "replyTo is too long (513 characters; max 512)"},
		{"accountId", api.ChatRequest{Message: "hi", AccountID: long}, "accountId is too long (513 characters; max 256)"},
		{"threadId", api.ChatRequest{Message: "hi", ThreadID: long}, "threadId is too long (513 characters; max 256)"},
		{"senderId", api.ChatRequest{Message: "hi", SenderID: long}, "senderId is too long (513 characters; max 256)"},
		{"NUL in to", api.ChatRequest{Message: "hi", To: "a\x00"}, "to must not contain null bytes"},
		{"NUL in the message", api.ChatRequest{Message: "a\x00"}, "message must not contain null bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.SessionKey = "agent:main:hints"
			_, err := h.e.Chat(ctx, api.Operator(), tt.req)
			if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != tt.want {
				t.Fatalf("Chat = %v, want invalid %q", err, tt.want)
			}
		})
	}
	if _, err := h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "agent:main:hints", Message: "hi", To: strings.Repeat("x", 512)}); err != nil {
		t.Fatalf("a 512-character to: %v", err)
	}
}
