package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestDeliverRefusesUnstorableText: `send`'s recipient and channel are
// bounded and, like its message, may not hold U+0000. They went into the
// outbox as they were: a NUL was a 500 on PostgreSQL, and a recipient of
// 25 MiB was stored.
func TestDeliverRefusesUnstorableText(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	h.chat("main", "hello")
	tests := []struct {
		name string
		req  api.DeliverRequest
		want string
	}{
		{"NUL in the message", api.DeliverRequest{To: "a", Message: "x\x00"}, "message must not contain null bytes"},
		{"NUL in the recipient", api.DeliverRequest{To: "a\x00", Message: "x"}, "to must not contain null bytes"},
		{"NUL in the channel", api.DeliverRequest{To: "a", Channel: "c\x00", Message: "x"}, "channel must not contain null bytes"},
		{"recipient too long", api.DeliverRequest{To: strings.Repeat("a", 513), Message: "x"}, "to is too long (513 characters; max 512)"},
		{"channel too long", api.DeliverRequest{To: "a", Channel: strings.Repeat("c", 129), Message: "x"}, "channel is too long (129 characters; max 128)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.e.Deliver(ctx, api.Operator(), tt.req)
			if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != tt.want {
				t.Fatalf("Deliver = %v, want invalid %q", err, tt.want)
			}
		})
	}
}
