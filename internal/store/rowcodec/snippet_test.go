package rowcodec

import (
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("w ", 40) + "needle " + strings.Repeat("v ", 40)
	tests := []struct {
		name, text string
		words      []string
		want       string
	}{
		{"short text whole", "find the needle here?", []string{"needle"}, "find the needle here?"},
		{"cut around the match", long, []string{"needle"},
			"…w w w w w w needle v v v v v v v v v v v v v v v v v…"},
		{"case and diacritics", "Le Café est ouvert", []string{"cafe"}, "Le Café est ouvert"},
		{"no match: the start", strings.Repeat("x ", 30), []string{"zzz"}, strings.TrimSpace(strings.Repeat("x ", 24)) + "…"},
		{"no words", "  ...  ", []string{"a"}, "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := snippet(tc.text, tc.words); got != tc.want {
				t.Errorf("snippet = %q, want %q", got, tc.want)
			}
		})
	}
}
