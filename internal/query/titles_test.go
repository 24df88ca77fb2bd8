package query

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "  hello \n world ", 20, "hello world"},
		{"exact", "abcde", 5, "abcde"},
		{"word boundary", "one two three four", 12, "one two…"},
		{"no space", strings.Repeat("x", 30), 10, strings.Repeat("x", 9) + "…"},
		{"runes not bytes", strings.Repeat("é", 30), 10, strings.Repeat("é", 9) + "…"},
		{"secret masked", "my key is sk-abcdefghijklmnopqrstuvwxyz0123", 200, "my key is sk-abc…0123"},
		{"empty", "   ", 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Clip(tt.in, tt.n)
			if tt.name == "secret masked" {
				if strings.Contains(got, "ghijklmnop") {
					t.Fatalf("Clip(%q) = %q keeps the secret", tt.in, got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
			if n := len([]rune(got)); n > tt.n {
				t.Fatalf("Clip(%q, %d) is %d characters", tt.in, tt.n, n)
			}
		})
	}
}
