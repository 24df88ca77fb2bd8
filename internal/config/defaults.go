package config

import "strings"

// Default values of keys that have one (docs/design.md#state-config-and-defaults).
const (
	DefaultScope                  = ScopePerSender
	DefaultMainKey                = "main"
	DefaultMaxPingPongTurns       = 5
	DefaultMaxHops                = 5
	DefaultVisibility             = "tree"
	DefaultMaxFiles               = 50
	DefaultMaxFileBytes           = 1 << 20
	DefaultMaxTotalBytes          = 5 << 20
	DefaultModel                  = "script"
	DefaultArchiveAfterMinutes    = 60
	DefaultMaxSpawnDepth          = 1
	DefaultMaxChildrenPerAgent    = 5
	DefaultMaxConcurrent          = 8
	DefaultSessionToolsVisibility = "spawned"
	DefaultSandboxMode            = SandboxOff
	DefaultAgentID                = "main"
	DefaultListen                 = "127.0.0.1:18789"
	DefaultMaxSteps               = 25
	DefaultLaneLimit              = 64
	DefaultProviderMaxRetries     = 2
	DefaultProviderTimeoutSeconds = 120
)

// Values of enumerated keys.
const (
	ScopePerSender = "per-sender"
	ScopeGlobal    = "global"

	SandboxOff = "off"
	SandboxAll = "all"

	PolicyAllow = "allow"
	PolicyDeny  = "deny"

	APIOpenAI    = "openai"
	APIAnthropic = "anthropic"

	ProviderScript    = "script"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// Default returns the configuration used when there is no config file: one
// agent "main" on the built-in offline model "script", and a default for
// every key.
func Default() *Config {
	c := base()
	c.fillDefaults()
	return c
}

// base returns the defaults that a config file is decoded onto. It has no
// slices or maps: encoding/json decodes into existing slice elements and map
// entries instead of replacing them, which would leak defaults into what the
// file says. Those defaults are filled in by fillDefaults after decoding.
func base() *Config {
	return &Config{
		Session: SessionConfig{
			Scope:   DefaultScope,
			MainKey: DefaultMainKey,
			AgentToAgent: SessionA2AConfig{
				MaxPingPongTurns: DefaultMaxPingPongTurns,
				MaxHops:          DefaultMaxHops,
				LoopBreaker:      LoopBreakerConfig{WindowSeconds: DefaultLoopWindowSeconds},
			},
		},
		Tools: ToolsConfig{
			Sessions: SessionsToolsConfig{Visibility: DefaultVisibility},
			SessionsSpawn: SessionsSpawnConfig{Attachments: AttachmentsConfig{
				MaxFiles:      DefaultMaxFiles,
				MaxFileBytes:  DefaultMaxFileBytes,
				MaxTotalBytes: DefaultMaxTotalBytes,
			}},
		},
		Agents: AgentsConfig{Defaults: AgentDefaults{
			Model: DefaultModel,
			Subagents: SubagentsDefaults{
				ArchiveAfterMinutes: DefaultArchiveAfterMinutes,
				MaxSpawnDepth:       DefaultMaxSpawnDepth,
				MaxChildrenPerAgent: DefaultMaxChildrenPerAgent,
				MaxConcurrent:       DefaultMaxConcurrent,
			},
			Sandbox: SandboxDefaults{
				SessionToolsVisibility: DefaultSessionToolsVisibility,
				Mode:                   DefaultSandboxMode,
			},
		}},
		Gateway: GatewayConfig{Listen: DefaultListen},
		Store:   StoreConfig{Driver: StoreSQLite},
		Runtime: RuntimeConfig{
			MaxSteps: DefaultMaxSteps,
			Lanes:    LaneLimits{Main: DefaultLaneLimit, Nested: DefaultLaneLimit, Subagent: DefaultLaneLimit},
		},
	}
}

// fillDefaults completes a decoded config: defaults inside lists and maps,
// values whose empty form means "the default", and the case of
// case-insensitive values (agent ids and enums), so the rest of the program
// and `config show` see the effective configuration.
func (c *Config) fillDefaults() {
	c.Store.Driver = lowerOr(c.Store.Driver, StoreSQLite)
	s := &c.Session
	s.Scope = lower(s.Scope)
	if p := s.SendPolicy; p != nil {
		p.Default = lowerOr(p.Default, PolicyAllow)
		for i := range p.Rules {
			p.Rules[i].Action = lowerOr(p.Rules[i].Action, PolicyAllow)
		}
	}
	// The reference documents maxPingPongTurns as clamped to 0..5 (as
	// OpenClaw does), and docs/design.md#parameters-and-errors clamps documented clamps rather than
	// refusing them: a config written for OpenClaw with 10 runs 5 turns.
	// Below 0 stays a problem (Validate), as negatives are everywhere.
	s.AgentToAgent.MaxPingPongTurns = min(s.AgentToAgent.MaxPingPongTurns, MaxPingPongTurns)
	c.Tools.Sessions.Visibility = lower(c.Tools.Sessions.Visibility)

	d := &c.Agents.Defaults
	d.Sandbox.SessionToolsVisibility = lower(d.Sandbox.SessionToolsVisibility)
	d.Sandbox.Mode = lowerOr(d.Sandbox.Mode, DefaultSandboxMode)
	d.Subagents.AllowAgents = lowerIDs(d.Subagents.AllowAgents)
	if len(c.Agents.List) == 0 {
		c.Agents.List = []AgentConfig{{ID: DefaultAgentID}}
	}
	for i := range c.Agents.List {
		a := &c.Agents.List[i]
		a.ID = lower(a.ID)
		if a.Subagents != nil {
			a.Subagents.AllowAgents = lowerIDs(a.Subagents.AllowAgents)
		}
		if a.Sandbox != nil {
			a.Sandbox.Mode = lower(a.Sandbox.Mode)
		}
	}

	for name, p := range c.Models.Providers {
		p.API = lower(p.API)
		if p.MaxRetries == nil {
			n := DefaultProviderMaxRetries
			p.MaxRetries = &n
		}
		if p.TimeoutSeconds == 0 {
			p.TimeoutSeconds = DefaultProviderTimeoutSeconds
		}
		c.Models.Providers[name] = p
	}

	if c.Gateway.Listen == "" {
		c.Gateway.Listen = DefaultListen
	}
	for i := range c.Gateway.Auth.Tokens {
		for j, sc := range c.Gateway.Auth.Tokens[i].Scopes {
			c.Gateway.Auth.Tokens[i].Scopes[j] = lower(sc)
		}
	}
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func lowerOr(s, def string) string {
	if s = lower(s); s == "" {
		return def
	}
	return s
}

// lowerIDs lowercases agent ids in place ("*" is unchanged by it).
func lowerIDs(ids []string) []string {
	for i, id := range ids {
		ids[i] = lower(id)
	}
	return ids
}
