package config

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

func TestAgentHelpersDefaultConfig(t *testing.T) {
	c := Default()
	if got := c.DefaultAgentID(); got != "main" {
		t.Errorf("DefaultAgentID = %q", got)
	}
	if diff := cmp.Diff([]string{"main"}, c.AgentIDs()); diff != "" {
		t.Errorf("AgentIDs (-want +got):\n%s", diff)
	}
	if a, ok := c.Agent("MAIN"); !ok || a.ID != "main" {
		t.Errorf("Agent(MAIN) = %+v, %v", a, ok)
	}
	if _, ok := c.Agent("other"); ok {
		t.Error("Agent(other) found")
	}
	if got := c.AgentModel("main"); got != "script" {
		t.Errorf("AgentModel = %q", got)
	}
	if c.AgentSandboxed("main") {
		t.Error("main is sandboxed by default")
	}
	if got := c.MainKey(); got != "main" {
		t.Errorf("MainKey = %q", got)
	}
	if got := c.AllowAgents("main"); got != nil {
		t.Errorf("AllowAgents = %q, want nil", got)
	}

	// An empty list (a config built in code) still has the implicit agent.
	empty := &Config{}
	if empty.DefaultAgentID() != "main" || !cmp.Equal(empty.AgentIDs(), []string{"main"}) || empty.AgentModel("main") != "script" || empty.MainKey() != "main" {
		t.Errorf("empty config: default=%q ids=%q model=%q mainKey=%q", empty.DefaultAgentID(), empty.AgentIDs(), empty.AgentModel("main"), empty.MainKey())
	}
	if _, ok := empty.Agent("main"); !ok {
		t.Error("empty config: no implicit main agent")
	}
}

func TestAgentHelpers(t *testing.T) {
	c, err := Parse([]byte(`{
		session: {mainKey: "Home", scope: "global"},
		agents: {
			defaults: {
				model: "openai/gpt-4.1-mini",
				subagents: {allowAgents: ["ops"], model: "anthropic/claude-sonnet-4-5"},
				sandbox: {mode: "all"},
			},
			list: [
				{id: "Lead", model: "script", sandbox: {mode: "off"}, subagents: {allowAgents: ["*"]}, workspace: "/srv/lead"},
				{id: "ops", default: true, workspace: "ws/ops"},
				{id: "quiet", subagents: {allowAgents: []}, sandbox: {}},
			],
		},
	}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.FromSlash("/var/lib/sb")
	tests := []struct {
		name      string
		got, want any
	}{
		{"DefaultAgentID", c.DefaultAgentID(), "ops"},
		{"AgentIDs", c.AgentIDs(), []string{"lead", "ops", "quiet"}},
		{"MainKey", c.MainKey(), "home"},
		{"AgentModel lead", c.AgentModel("LEAD"), "script"},
		{"AgentModel ops", c.AgentModel("ops"), "openai/gpt-4.1-mini"},
		{"AgentModel unknown", c.AgentModel("ghost"), "openai/gpt-4.1-mini"},
		{"SubagentModel", c.SubagentModel("lead"), "anthropic/claude-sonnet-4-5"},
		{"AgentSandboxed lead (own off)", c.AgentSandboxed("lead"), false},
		{"AgentSandboxed ops (defaults all)", c.AgentSandboxed("ops"), true},
		{"AgentSandboxed quiet (empty mode inherits)", c.AgentSandboxed("quiet"), true},
		{"Workspace absolute", c.Workspace(state, "lead"), filepath.FromSlash("/srv/lead")},
		{"Workspace relative", c.Workspace(state, "ops"), filepath.Join(state, "ws", "ops")},
		{"Workspace default", c.Workspace(state, "Quiet"), filepath.Join(state, "agents", "quiet", "workspace")},
		{"AllowAgents own", c.AllowAgents("lead"), []string{"*"}},
		{"AllowAgents defaults", c.AllowAgents("ops"), []string{"ops"}},
		{"AllowAgents explicit empty", c.AllowAgents("quiet"), []string{}},
		{"KeyResolver", c.KeyResolver(), sessionkey.Resolver{MainKey: "home", DefaultAgentID: "ops", GlobalScope: true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if a, ok := c.Agent("lead"); !ok || a.Workspace != "/srv/lead" {
		t.Errorf("Agent(lead) = %+v, %v", a, ok)
	}
	key, err := c.KeyResolver().Canonical("global", "lead")
	if err != nil || key != "agent:lead:home" {
		t.Errorf("KeyResolver().Canonical(global) = %q, %v", key, err)
	}
}

func TestSplitModelRef(t *testing.T) {
	tests := []struct{ ref, provider, model string }{
		{"script", "script", ""},
		{"openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"},
		{"vllm/meta-llama/Llama-3", "vllm", "meta-llama/Llama-3"},
		{"", "", ""},
	}
	for _, tt := range tests {
		p, m := SplitModelRef(tt.ref)
		if p != tt.provider || m != tt.model {
			t.Errorf("SplitModelRef(%q) = %q, %q", tt.ref, p, m)
		}
	}
	for name, want := range map[string]bool{"script": true, "openai": true, "anthropic": true, "local": false, "OpenAI": false} {
		if got := IsBuiltinProvider(name); got != want {
			t.Errorf("IsBuiltinProvider(%q) = %v", name, got)
		}
	}
}
