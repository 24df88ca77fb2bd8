package policy

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

func TestA2AAllowed(t *testing.T) {
	tests := []struct {
		name     string
		a        A2A
		req, tgt string
		want     bool
	}{
		{"same agent, disabled", A2A{}, "main", "main", true},
		{"same agent, allow list excludes it", A2A{Enabled: true, Allow: []string{"other"}}, "main", "main", true},
		{"disabled", A2A{Allow: []string{"*"}}, "main", "research", false},
		{"enabled, empty list allows all", A2A{Enabled: true}, "main", "research", true},
		{"enabled, blank entries act as empty", A2A{Enabled: true, Allow: []string{" ", ""}}, "main", "research", true},
		{"star", A2A{Enabled: true, Allow: []string{"*"}}, "main", "research", true},
		{"both listed", A2A{Enabled: true, Allow: []string{"main", "research"}}, "main", "research", true},
		{"target missing", A2A{Enabled: true, Allow: []string{"main"}}, "main", "research", false},
		{"requester missing", A2A{Enabled: true, Allow: []string{"research"}}, "main", "research", false},
		{"exact is case-sensitive", A2A{Enabled: true, Allow: []string{"main", "Research"}}, "main", "research", false},
		{"glob is case-insensitive", A2A{Enabled: true, Allow: []string{"main", "RES*"}}, "main", "research", true},
		{"glob is anchored", A2A{Enabled: true, Allow: []string{"main", "*search"}}, "main", "researchers", false},
		{"glob in the middle", A2A{Enabled: true, Allow: []string{"m*n", "r*h"}}, "main", "research", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Allowed(tt.req, tt.tgt); got != tt.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v", tt.req, tt.tgt, got, tt.want)
			}
		})
	}
}

func TestA2AAllowsAny(t *testing.T) {
	tests := []struct {
		allow []string
		want  bool
	}{
		{nil, true},
		{[]string{"*"}, true},
		{[]string{"main", "**"}, true},
		{[]string{"main"}, false},
		{[]string{"m*"}, false},
	}
	for _, tt := range tests {
		if got := (A2A{Enabled: true, Allow: tt.allow}).AllowsAny(); got != tt.want {
			t.Errorf("AllowsAny(%q) = %v, want %v", tt.allow, got, tt.want)
		}
	}
}

func TestNewA2A(t *testing.T) {
	if got := NewA2A(nil); got.Enabled || got.Allow != nil {
		t.Errorf("NewA2A(nil) = %+v, want disabled", got)
	}
	cfg := &config.Config{Tools: config.ToolsConfig{AgentToAgent: config.AgentToAgentConfig{Enabled: true, Allow: []string{"a"}}}}
	if got := NewA2A(cfg); !got.Enabled || len(got.Allow) != 1 || got.Allow[0] != "a" {
		t.Errorf("NewA2A = %+v", got)
	}
}
