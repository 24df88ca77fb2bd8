package sessionkey

import (
	"strings"
	"testing"
)

func TestValidAgentID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"main", true},
		{"a", true},
		{"0", true},
		{"Main", true}, // case-insensitive
		{"research_bot-2", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"-a", false},
		{"_a", false},
		{"a b", false},
		{"a:b", false},
		{"a.b", false},
		{"é", false},
		{" main", false},
	}
	for _, tt := range tests {
		if got := ValidAgentID(tt.id); got != tt.want {
			t.Errorf("ValidAgentID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNormalizeAgentID(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"main", "main"},
		{"  Research  ", "research"},
		{"my agent", "my-agent"},
		{"a..b//c", "a-b-c"},
		{"__x", "x"},
		{"-x-", "x"},
		{"x_", "x_"},
		{"héllo wörld", "h-llo-w-rld"},
		{"", DefaultAgentID},
		{"!!!", DefaultAgentID},
		{strings.Repeat("ab", 40), strings.Repeat("ab", 32)},
		{strings.Repeat("a", 63) + " b", strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		got := NormalizeAgentID(tt.in)
		if got != tt.want {
			t.Errorf("NormalizeAgentID(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !ValidAgentID(got) {
			t.Errorf("NormalizeAgentID(%q) = %q is not a valid id", tt.in, got)
		}
	}
}
