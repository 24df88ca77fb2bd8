package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefault(t *testing.T) {
	want := &Config{
		Session: SessionConfig{
			Scope:        "per-sender",
			MainKey:      "main",
			AgentToAgent: SessionA2AConfig{MaxPingPongTurns: 5, MaxHops: 5, LoopBreaker: LoopBreakerConfig{WindowSeconds: 600}},
		},
		Tools: ToolsConfig{
			Sessions:     SessionsToolsConfig{Visibility: "tree"},
			AgentToAgent: AgentToAgentConfig{Enabled: false},
			SessionsSpawn: SessionsSpawnConfig{Attachments: AttachmentsConfig{
				Enabled: false, MaxFiles: 50, MaxFileBytes: 1 << 20, MaxTotalBytes: 5 << 20,
			}},
		},
		Agents: AgentsConfig{
			Defaults: AgentDefaults{
				Model: "script",
				Subagents: SubagentsDefaults{
					RunTimeoutSeconds: 0, ArchiveAfterMinutes: 60, MaxSpawnDepth: 1,
					MaxChildrenPerAgent: 5, MaxConcurrent: 8,
				},
				Sandbox: SandboxDefaults{SessionToolsVisibility: "spawned", Mode: "off"},
			},
			List: []AgentConfig{{ID: "main"}},
		},
		Gateway: GatewayConfig{Listen: "127.0.0.1:18789"},
		Store:   StoreConfig{Driver: "sqlite"},
		Runtime: RuntimeConfig{MaxSteps: 25, Lanes: LaneLimits{Main: 64, Nested: 64, Subagent: 64}},
	}
	got := Default()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Default() mismatch (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("Default() does not validate: %v", err)
	}
	if Default() == Default() || &Default().Agents.List[0] == &Default().Agents.List[0] {
		t.Fatal("Default() shares state between calls")
	}
}

func TestEmptyInputsMeanDefaults(t *testing.T) {
	for _, in := range []string{"", "  \n\t", "{}", "// nothing here\n", "/* nothing */", "{ /* still nothing */ }", "\ufeff"[:0]} {
		got, err := Parse([]byte(in), nil)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if diff := cmp.Diff(Default(), got); diff != "" {
			t.Errorf("Parse(%q) differs from Default() (-want +got):\n%s", in, diff)
		}
	}
}

func TestLoadMissingFileMeansDefaults(t *testing.T) {
	got, err := Load(filepath.Join(t.TempDir(), "nope", "switchboard.json5"), nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Errorf("Load(missing) differs from Default() (-want +got):\n%s", diff)
	}
}

func TestLoadReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, nil); err == nil {
		t.Error("Load(a directory) succeeded")
	}
	big := filepath.Join(dir, "big.json5")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big, nil); err == nil {
		t.Error("Load(a file larger than MaxFileSize) succeeded")
	}
}

func TestExplicitValuesOverDefaults(t *testing.T) {
	cfg, err := Parse([]byte(`{
		session: { agentToAgent: { maxPingPongTurns: 0 } },
		agents: { defaults: { subagents: { archiveAfterMinutes: 0 } } },
		tools: { agentToAgent: { enabled: true } },
	}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Session.AgentToAgent.MaxPingPongTurns; got != 0 {
		t.Errorf("maxPingPongTurns = %d, want the explicit 0", got)
	}
	if got := cfg.Session.AgentToAgent.MaxHops; got != DefaultMaxHops {
		t.Errorf("maxHops = %d, want the default %d beside an explicit sibling", got, DefaultMaxHops)
	}
	if got := cfg.Agents.Defaults.Subagents.ArchiveAfterMinutes; got != 0 {
		t.Errorf("archiveAfterMinutes = %d, want the explicit 0", got)
	}
	if got := cfg.Agents.Defaults.Subagents.MaxConcurrent; got != DefaultMaxConcurrent {
		t.Errorf("maxConcurrent = %d, want the default", got)
	}
	if !cfg.Tools.AgentToAgent.Enabled {
		t.Error("tools.agentToAgent.enabled = false, want true")
	}
}

func TestListDefaultsDoNotLeakIntoFileValues(t *testing.T) {
	cfg, err := Parse([]byte(`{agents: {list: [{id: "a", name: "A"}, {id: "b"}]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []AgentConfig{{ID: "a", Name: "A"}, {ID: "b"}}
	if diff := cmp.Diff(want, cfg.Agents.List); diff != "" {
		t.Errorf("agents.list (-want +got):\n%s", diff)
	}
}

func TestFillDefaults(t *testing.T) {
	cfg, err := Parse([]byte(`{
		session: { scope: " Global ", sendPolicy: { rules: [{ match: { channel: "x" } }] } },
		tools: { sessions: { visibility: "ALL" } },
		agents: {
			defaults: { sandbox: { mode: "" }, subagents: { allowAgents: ["Research", "*"] } },
			list: [{ id: "Main", sandbox: { mode: "ALL" }, subagents: { allowAgents: ["OPS"] } }],
		},
		models: { providers: { local: { api: "OpenAI", baseUrl: "http://127.0.0.1:1/v1" }, openai: { maxRetries: 0 } } },
		gateway: { listen: "", auth: { tokens: [{ token: "abc", scopes: ["READ"] }] } },
	}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"session.scope", cfg.Session.Scope, "global"},
		{"sendPolicy.default", cfg.Session.SendPolicy.Default, "allow"},
		{"sendPolicy.rules[0].action", cfg.Session.SendPolicy.Rules[0].Action, "allow"},
		{"visibility", cfg.Tools.Sessions.Visibility, "all"},
		{"defaults.sandbox.mode", cfg.Agents.Defaults.Sandbox.Mode, "off"},
		{"defaults.allowAgents", cfg.Agents.Defaults.Subagents.AllowAgents, []string{"research", "*"}},
		{"list[0].id", cfg.Agents.List[0].ID, "main"},
		{"list[0].sandbox.mode", cfg.Agents.List[0].Sandbox.Mode, "all"},
		{"list[0].allowAgents", cfg.Agents.List[0].Subagents.AllowAgents, []string{"ops"}},
		{"local.api", cfg.Models.Providers["local"].API, "openai"},
		{"local.maxRetries", *cfg.Models.Providers["local"].MaxRetries, DefaultProviderMaxRetries},
		{"local.timeoutSeconds", cfg.Models.Providers["local"].TimeoutSeconds, DefaultProviderTimeoutSeconds},
		{"openai.maxRetries", *cfg.Models.Providers["openai"].MaxRetries, 0},
		{"gateway.listen", cfg.Gateway.Listen, DefaultListen},
		{"tokens[0].scopes", cfg.Gateway.Auth.Tokens[0].Scopes, []string{"read"}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// writeFile writes a config file into a temp dir and returns its path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "switchboard.json5")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMaxPingPongTurnsClamped: the reference's 0..5 is a clamp, so a
// larger value runs 5 turns (config show says so) and a negative one is
// still refused.
func TestMaxPingPongTurnsClamped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"5", 5}, {"6", 5}, {"1000", 5}, {"0", 0}, {"3", 3}} {
		cfg, err := Parse([]byte(`{session: {agentToAgent: {maxPingPongTurns: `+tc.in+`}}}`), nil)
		if err != nil {
			t.Fatalf("maxPingPongTurns %s: %v", tc.in, err)
		}
		if got := cfg.Session.AgentToAgent.MaxPingPongTurns; got != tc.want {
			t.Errorf("maxPingPongTurns %s = %d, want %d", tc.in, got, tc.want)
		}
	}
	_, err := Parse([]byte(`{session: {agentToAgent: {maxPingPongTurns: -1}}}`), nil)
	if err == nil || !strings.Contains(err.Error(), "session.agentToAgent.maxPingPongTurns: -1 is out of range (0..5)") {
		t.Errorf("maxPingPongTurns -1: %v, want out of range", err)
	}
}
