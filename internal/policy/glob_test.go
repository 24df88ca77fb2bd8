package policy

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"main", "main", true},
		{"main", "Main", true}, // globMatch itself is case-insensitive
		{"main", "mainx", false},
		{"res*", "research", true},
		{"res*", "RESEARCH", true},
		{"res*", "xresearch", false},
		{"*ops", "devops", true},
		{"*ops", "devopsx", false},
		{"a*b*c", "abc", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"a**", "a", true},
		{"*a*", "bab", true},
		{"*a*", "bbb", false},
		{"", "", true},
		{"", "x", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
