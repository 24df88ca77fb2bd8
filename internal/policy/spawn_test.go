package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func spawnConfig() *config.Config {
	cfg := &config.Config{}
	cfg.Agents.Defaults.Model = "openai/gpt-4.1-mini"
	cfg.Agents.List = []config.AgentConfig{
		{ID: "main", Name: "Main", Default: true},
		{ID: "research", Name: "Research", Model: "anthropic/claude-sonnet-4-5", Subagents: &config.AgentSubagents{AllowAgents: []string{"*"}}},
		{ID: "ops", Subagents: &config.AgentSubagents{AllowAgents: []string{}}},
		{ID: "writer"},
	}
	cfg.Agents.Defaults.Subagents.AllowAgents = []string{"Research", "ghost"}
	return cfg
}

func withRemote(cfg *config.Config, id string) *config.Config {
	cfg.A2A.Remotes = append(cfg.A2A.Remotes, config.A2ARemote{ID: id, URL: "http://127.0.0.1:1/"})
	return cfg
}

func TestSpawnAllowed(t *testing.T) {
	tests := []struct {
		name      string
		cfg       *config.Config
		req, tgt  string
		wantCode  string
		wantError string
	}{
		{name: "own agent", cfg: spawnConfig(), req: "main", tgt: "main"},
		{name: "empty target is own agent", cfg: spawnConfig(), req: "writer", tgt: ""},
		{name: "defaults allow list, case-insensitive", cfg: spawnConfig(), req: "main", tgt: "RESEARCH"},
		{
			name: "defaults allow list refuses", cfg: spawnConfig(), req: "main", tgt: "writer",
			wantCode: domain.CodeForbidden, wantError: `agentId "writer" is not allowed for sessions_spawn (allowed: main, ghost, research)`,
		},
		{
			name: "allow-listed but unconfigured", cfg: spawnConfig(), req: "main", tgt: "ghost",
			wantCode: domain.CodeInvalid, wantError: `unknown agent id "ghost" (configured: main, research, ops, writer)`,
		},
		{name: "star allows any configured", cfg: spawnConfig(), req: "research", tgt: "writer"},
		{
			name: "star refuses unconfigured", cfg: spawnConfig(), req: "research", tgt: "nobody",
			wantCode: domain.CodeInvalid, wantError: `unknown agent id "nobody" (configured: main, research, ops, writer)`,
		},
		{
			name: "per-agent empty list beats defaults", cfg: spawnConfig(), req: "ops", tgt: "research",
			wantCode: domain.CodeForbidden, wantError: `agentId "research" is not allowed for sessions_spawn (allowed: ops)`,
		},
		{
			name: "no allow list: only own agent", cfg: &config.Config{Agents: config.AgentsConfig{List: []config.AgentConfig{{ID: "main"}, {ID: "b"}}}}, req: "main", tgt: "b",
			wantCode: domain.CodeForbidden, wantError: `agentId "b" is not allowed for sessions_spawn (allowed: main)`,
		},
		{
			name: "remote A2A agent is not a spawn target", cfg: withRemote(spawnConfig(), "Beta-GW"), req: "main", tgt: "beta-gw",
			wantCode: domain.CodeInvalid, wantError: `agentId "beta-gw" is a remote A2A agent (a2a.remotes): remote agents are not sessions_spawn targets; reach it with sessions_send`,
		},
		{name: "nil config: implicit main", cfg: nil, req: "main", tgt: "main"},
		{
			name: "own agent must be configured", cfg: spawnConfig(), req: "gone", tgt: "gone",
			wantCode: domain.CodeInvalid, wantError: `unknown agent id "gone" (configured: main, research, ops, writer)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SpawnAllowed(tt.cfg, tt.req, tt.tgt)
			if tt.wantError == "" {
				if err != nil {
					t.Fatalf("SpawnAllowed() = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantError || domain.ErrorCode(err) != tt.wantCode {
				t.Fatalf("SpawnAllowed() = %v (code %s), want %q (code %s)", err, domain.ErrorCode(err), tt.wantError, tt.wantCode)
			}
		})
	}
}

func TestAgentsList(t *testing.T) {
	tests := []struct {
		name string
		cfg  *config.Config
		req  string
		want AgentsListResult
	}{
		{
			name: "defaults allow list with an unconfigured id",
			cfg:  spawnConfig(),
			req:  "main",
			want: AgentsListResult{Requester: "main", Agents: []AgentInfo{
				{ID: "main", Name: "Main", Model: "openai/gpt-4.1-mini", Configured: true},
				{ID: "ghost"},
				{ID: "research", Name: "Research", Model: "anthropic/claude-sonnet-4-5", Configured: true},
			}},
		},
		{
			name: "star lists every configured agent sorted",
			cfg:  spawnConfig(),
			req:  "research",
			want: AgentsListResult{Requester: "research", AllowAny: true, Agents: []AgentInfo{
				{ID: "research", Name: "Research", Model: "anthropic/claude-sonnet-4-5", Configured: true},
				{ID: "main", Name: "Main", Model: "openai/gpt-4.1-mini", Configured: true},
				{ID: "ops", Model: "openai/gpt-4.1-mini", Configured: true},
				{ID: "writer", Model: "openai/gpt-4.1-mini", Configured: true},
			}},
		},
		{
			name: "empty per-agent list: only the requester",
			cfg:  spawnConfig(),
			req:  "ops",
			want: AgentsListResult{Requester: "ops", Agents: []AgentInfo{
				{ID: "ops", Model: "openai/gpt-4.1-mini", Configured: true},
			}},
		},
		{
			name: "nil config",
			cfg:  nil,
			req:  "main",
			want: AgentsListResult{Requester: "main", Agents: []AgentInfo{{ID: "main", Model: "script", Configured: true}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AgentsList(tt.cfg, tt.req)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AgentsList() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
