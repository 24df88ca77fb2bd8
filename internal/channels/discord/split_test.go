package discord

import (
	"strings"
	"testing"
)

func TestSplitText(t *testing.T) {
	long := strings.Repeat("word ", 900) // 4,500 characters
	code := "intro\n```go\n" + strings.Repeat("x := 1\n", 400) + "```\nafter"
	emoji := strings.Repeat("😀", 1500) // 3,000 UTF-16 units
	tests := []struct {
		name   string
		in     string
		chunks int
	}{
		{"empty", "  ", 0},
		{"short", "hello **world**", 1},
		{"exactly the limit", strings.Repeat("a", MaxMessageChars), 1},
		{"one over", strings.Repeat("a", MaxMessageChars+1), 2},
		{"words", long, 3},
		{"code block", code, 2},
		{"surrogate pairs", emoji, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := splitText(tc.in, MaxMessageChars)
			if len(got) != tc.chunks {
				t.Fatalf("got %d chunks, want %d", len(got), tc.chunks)
			}
			for i, c := range got {
				if n := units(c); n > MaxMessageChars || n == 0 {
					t.Errorf("chunk %d has %d UTF-16 units", i, n)
				}
				if open, _ := openFence(c); open {
					t.Errorf("chunk %d leaves a code block open", i)
				}
				if strings.ContainsRune(c, '\uFFFD') {
					t.Errorf("chunk %d cut a character in two", i)
				}
			}
		})
	}
	// Words are not cut, and nothing is lost but the whitespace at cuts.
	got := splitText(long, MaxMessageChars)
	if strings.Join(strings.Fields(strings.Join(got, " ")), " ") != strings.TrimSpace(long) {
		t.Error("splitting lost or cut words")
	}
	c := splitText(code, MaxMessageChars)
	if !strings.HasPrefix(c[1], "```go\n") {
		t.Errorf("second chunk does not reopen the go block: %.20q", c[1])
	}
}

func FuzzSplitText(f *testing.F) {
	f.Add("hello", 2000)
	f.Add("```\n"+strings.Repeat("a\n", 50), 40)
	f.Add(strings.Repeat("😀 ", 30), 16)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit = 64 + abs(limit)%3000
		for i, c := range splitText(s, limit) {
			if units(c) > limit {
				t.Fatalf("chunk %d has %d units > %d", i, units(c), limit)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // MinInt
			return 0
		}
		return -n
	}
	return n
}

func TestNonce(t *testing.T) {
	a, b := Nonce("key-1", 0), Nonce("key-1", 0)
	if a != b {
		t.Fatalf("nonce not stable: %s %s", a, b)
	}
	if Nonce("key-1", 1) == a || Nonce("key-2", 0) == a {
		t.Fatal("nonces collide across chunks or deliveries")
	}
	if len(Nonce(strings.Repeat("k", 500), 99)) > 25 {
		t.Fatal("nonce longer than Discord's 25 characters")
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct{ in, kind, id string }{
		{"channel:135000000000000010", "channel", "135000000000000010"},
		{"user:135000000000000099", "user", "135000000000000099"},
		{"135000000000000010", "channel", "135000000000000010"},
		{"guild:1", "", ""},
		{"channel:abc", "", ""},
		{"", "", ""},
	} {
		k, id, err := ParseTarget(tc.in)
		if k != tc.kind || id != tc.id || (err != nil) != (tc.kind == "") {
			t.Errorf("ParseTarget(%q) = %q %q %v", tc.in, k, id, err)
		}
	}
}
