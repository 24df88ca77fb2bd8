package config

import (
	"strings"
	"testing"
)

// The legacy streamMode is accepted (OpenClaw still reads it) and its
// value checked; the current streaming.mode is OpenClaw's schema's.
func TestTelegramStreamModeKeys(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantErr string
	}{
		{"streaming.mode", `{"botToken":"1:x","streaming":{"mode":"partial"}}`, ""},
		{"legacy streamMode", `{"botToken":"1:x","streamMode":"partial"}`, ""},
		{"legacy streamMode of an account", `{"accounts":{"a":{"botToken":"1:x","streamMode":"block"}}}`, ""},
		{"bad streamMode", `{"botToken":"1:x","streamMode":"fast"}`, "channels.telegram.streamMode"},
		{"bad account streamMode", `{"accounts":{"a":{"streamMode":1}}}`, "channels.telegram.accounts.a.streamMode"},
		{"bad streaming.mode", `{"botToken":"1:x","streaming":{"mode":"fast"}}`, "channels.telegram.streaming.mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(`{"channels":{"telegram":`+tc.block+`}}`), func(string) string { return "" })
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}
