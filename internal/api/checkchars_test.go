package api

import (
	"strings"
	"testing"
)

// TestCheckCharsRefusesNUL: a text parameter holding U+0000 is refused on
// every surface with OpenClaw's chat.send wording. PostgreSQL cannot store
// it in a TEXT column, so it used to pass on SQLite and be a 500 `internal
// error` on PostgreSQL.
func TestCheckCharsRefusesNUL(t *testing.T) {
	tests := []struct {
		name string
		l    Limit
		s    string
		want string
	}{
		{"plain text", MessageChars, "hello\tworld\n", ""},
		{"other control characters pass", MessageChars, "a\x01b\x7f", ""},
		{"NUL in a message", MessageChars, "before\x00after", "message must not contain null bytes"},
		{"NUL in a task", TaskChars, "\x00", "task must not contain null bytes"},
		{"NUL in an idempotency key", IdempotencyKeyChars, "k\x00", "idempotencyKey must not contain null bytes"},
		{"no list search", ListSearchChars, "", ""},
		{"NUL in a list search", ListSearchChars, "a\x00", "search must not contain null bytes"},
		{"a list search over 500 characters", ListSearchChars, strings.Repeat("é", 501), "search is too long (501 characters; max 500)"},
		{"too long wins", MessageChars, strings.Repeat("x", 100_001) + "\x00", "message is too long (100002 characters; max 100000)"},
		// Labels and keys refuse control characters in their own words.
		{"a label is left to its own check", LabelChars, "a\x00", ""},
		{"a key is left to its own check", KeyChars, "a\x00", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.l.CheckChars(tt.s)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("CheckChars(%q) = %q, want %q", tt.s, got, tt.want)
			}
		})
	}
}
