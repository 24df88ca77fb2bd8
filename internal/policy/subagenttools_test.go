package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
)

func TestSubagentTools(t *testing.T) {
	all := []string{"read", "write", "exec", "web_fetch", "sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "agents_list", "subagents"}
	tests := []struct {
		name            string
		filter          config.ToolFilter
		depth, maxDepth int
		want            []string
	}{
		{
			name:  "default leaf: no session tools",
			depth: 1, maxDepth: 1,
			want: []string{"read", "write", "exec", "web_fetch"},
		},
		{
			name:  "default orchestrator keeps spawn tools",
			depth: 1, maxDepth: 2,
			want: []string{"read", "write", "exec", "web_fetch", "sessions_spawn", "subagents"},
		},
		{
			name:   "allow list only",
			filter: config.ToolFilter{Allow: []string{"read", "sessions_history"}},
			depth:  1, maxDepth: 1,
			want: []string{"read", "sessions_history"},
		},
		{
			name:   "allow glob cannot bring spawn back at max depth",
			filter: config.ToolFilter{Allow: []string{"sessions_*", "subagents"}},
			depth:  1, maxDepth: 1,
			want: []string{"sessions_list", "sessions_history", "sessions_send"},
		},
		{
			name:   "allow glob below max depth",
			filter: config.ToolFilter{Allow: []string{"sessions_*"}},
			depth:  1, maxDepth: 3,
			want: []string{"sessions_list", "sessions_history", "sessions_send", "sessions_spawn"},
		},
		{
			name:   "deny glob",
			filter: config.ToolFilter{Deny: []string{"w*", " exec "}},
			depth:  1, maxDepth: 1,
			want: []string{"read"},
		},
		{
			name:   "deny beats allow",
			filter: config.ToolFilter{Allow: []string{"*"}, Deny: []string{"sessions_send", "agents_list"}},
			depth:  2, maxDepth: 2,
			want: []string{"read", "write", "exec", "web_fetch", "sessions_list", "sessions_history"},
		},
		{
			name:   "deny star",
			filter: config.ToolFilter{Deny: []string{"*"}},
			depth:  0, maxDepth: 1,
			want: []string{},
		},
		{
			name:   "blank allow entries are no allow list",
			filter: config.ToolFilter{Allow: []string{" "}},
			depth:  1, maxDepth: 1,
			want: []string{"read", "write", "exec", "web_fetch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			cfg.Tools.Subagents.Tools = tt.filter
			got := SubagentTools(cfg, all, tt.depth, tt.maxDepth)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SubagentTools() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if got := SubagentTools(nil, []string{"read", "read", "sessions_send"}, 1, 1); !cmp.Equal(got, []string{"read"}) {
		t.Errorf("nil config with duplicates = %q, want [read]", got)
	}
}

// sessions_yield follows sessions_spawn (a child that may not spawn has
// nothing to wait for); session_status is a session tool sub-agents lose.
func TestSubagentToolsYieldAndStatus(t *testing.T) {
	all := []string{"read", "sessions_spawn", "subagents", "sessions_yield", "session_status"}
	if got, want := SubagentTools(&config.Config{}, all, 1, 1), []string{"read"}; !cmp.Equal(got, want) {
		t.Errorf("leaf = %v, want %v", got, want)
	}
	if got, want := SubagentTools(&config.Config{}, all, 1, 2), []string{"read", "sessions_spawn", "subagents", "sessions_yield"}; !cmp.Equal(got, want) {
		t.Errorf("orchestrator = %v, want %v", got, want)
	}
	allow := &config.Config{}
	allow.Tools.Subagents.Tools.Allow = []string{"session_status", "sessions_yield"}
	if got, want := SubagentTools(allow, all, 1, 1), []string{"session_status"}; !cmp.Equal(got, want) {
		t.Errorf("allow list at max depth = %v, want %v (yield never survives where spawn cannot)", got, want)
	}
}
