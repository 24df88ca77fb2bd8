package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestHistoryMaxChars: chat.history's maxChars cuts raw messages to it,
// and narrows (never widens) the sanitizer's 4000-character cap.
func TestHistoryMaxChars(t *testing.T) {
	h := newHarness(t, nil, nil)
	long := strings.Repeat("a", 5000)
	h.chat("agent:main:wide", long)
	marker := "\n…(truncated)…"
	cases := []struct {
		name     string
		raw      bool
		maxChars int
		want     int
	}{
		{"raw, no cut", true, 0, 5000},
		{"raw, cut to 10", true, 10, 10 + len(marker)},
		{"sanitized, its own cap", false, 0, 4000 + len(marker)},
		{"sanitized, narrowed to 10", false, 10, 10 + len(marker)},
		{"sanitized, never widened", false, 4500, 4000 + len(marker)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.e.history(context.Background(), Requester{Operator: true},
				api.HistoryRequest{SessionKey: "agent:main:wide", Limit: 10, Raw: tc.raw, MaxChars: tc.maxChars})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) == 0 || res.Messages[0].Role != domain.RoleUser {
				t.Fatalf("messages = %+v", res.Messages)
			}
			if got := len(res.Messages[0].Content.Text()); got != tc.want {
				t.Errorf("user text is %d bytes, want %d", got, tc.want)
			}
		})
	}
}
