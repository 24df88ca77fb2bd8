package config

import (
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// DefaultAgentID returns the id of the agent with default:true, else of the
// first agent in agents.list, else "main".
func (c *Config) DefaultAgentID() string {
	for _, a := range c.Agents.List {
		if a.Default {
			return strings.ToLower(a.ID)
		}
	}
	if len(c.Agents.List) > 0 {
		return strings.ToLower(c.Agents.List[0].ID)
	}
	return DefaultAgentID
}

// Agent returns the configured agent with id (case-insensitive). With an
// empty agents.list the implicit agent "main" exists.
func (c *Config) Agent(id string) (AgentConfig, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(c.Agents.List) == 0 {
		if id == DefaultAgentID {
			return AgentConfig{ID: DefaultAgentID}, true
		}
		return AgentConfig{}, false
	}
	for _, a := range c.Agents.List {
		if strings.ToLower(a.ID) == id {
			return a, true
		}
	}
	return AgentConfig{}, false
}

// AgentIDs returns the configured agent ids, lowercase, in config order.
func (c *Config) AgentIDs() []string {
	if len(c.Agents.List) == 0 {
		return []string{DefaultAgentID}
	}
	ids := make([]string, len(c.Agents.List))
	for i, a := range c.Agents.List {
		ids[i] = strings.ToLower(a.ID)
	}
	return ids
}

// MainKey returns session.mainKey lowercased ("main" when unset).
func (c *Config) MainKey() string {
	if k := strings.ToLower(strings.TrimSpace(c.Session.MainKey)); k != "" {
		return k
	}
	return DefaultMainKey
}

// KeyResolver returns the session key resolver for this config.
func (c *Config) KeyResolver() sessionkey.Resolver {
	return sessionkey.Resolver{
		MainKey:        c.MainKey(),
		DefaultAgentID: c.DefaultAgentID(),
		GlobalScope:    strings.EqualFold(c.Session.Scope, ScopeGlobal),
	}
}

// AgentModel returns the model reference of agent id: its model, else
// agents.defaults.model, else "script".
func (c *Config) AgentModel(id string) string {
	if a, ok := c.Agent(id); ok && a.Model != "" {
		return a.Model
	}
	if c.Agents.Defaults.Model != "" {
		return c.Agents.Defaults.Model
	}
	return DefaultModel
}

// SubagentModel returns the model reference for sub-agent runs of agent id:
// agents.defaults.subagents.model, else the agent's model.
func (c *Config) SubagentModel(id string) string {
	if m := c.Agents.Defaults.Subagents.Model; m != "" {
		return m
	}
	return c.AgentModel(id)
}

// AgentSandboxed reports whether every session of agent id is sandboxed:
// its sandbox.mode, else agents.defaults.sandbox.mode, is "all".
func (c *Config) AgentSandboxed(id string) bool {
	if a, ok := c.Agent(id); ok && a.Sandbox != nil && a.Sandbox.Mode != "" {
		return strings.EqualFold(a.Sandbox.Mode, SandboxAll)
	}
	return strings.EqualFold(c.Agents.Defaults.Sandbox.Mode, SandboxAll)
}

// Workspace returns agent agentID's workspace directory: its workspace
// (relative paths are relative to stateDir), else
// <stateDir>/agents/<id>/workspace.
func (c *Config) Workspace(stateDir, agentID string) string {
	id := strings.ToLower(strings.TrimSpace(agentID))
	if a, ok := c.Agent(id); ok && a.Workspace != "" {
		if filepath.IsAbs(a.Workspace) {
			return filepath.Clean(a.Workspace)
		}
		return filepath.Join(stateDir, a.Workspace)
	}
	return filepath.Join(stateDir, "agents", id, "workspace")
}

// AllowAgents returns the agent ids requesterAgentID may spawn under ("*"
// means any): its subagents.allowAgents, else
// agents.defaults.subagents.allowAgents, else nil (only itself).
func (c *Config) AllowAgents(requesterAgentID string) []string {
	if a, ok := c.Agent(requesterAgentID); ok && a.Subagents != nil && a.Subagents.AllowAgents != nil {
		return a.Subagents.AllowAgents
	}
	return c.Agents.Defaults.Subagents.AllowAgents
}

// SubagentBudget is the budget default of agentID's spawns: the agent's
// own (agents.list[].subagents.budget) field by field over the defaults.
func (c *Config) SubagentBudget(agentID string) BudgetConfig {
	var b BudgetConfig
	if d := c.Agents.Defaults.Subagents.Budget; d != nil {
		b = *d
	}
	if a, ok := c.Agent(agentID); ok && a.Subagents != nil && a.Subagents.Budget != nil {
		o := a.Subagents.Budget
		if o.Tokens != 0 {
			b.Tokens = o.Tokens
		}
		if o.CostUSD != 0 {
			b.CostUSD = o.CostUSD
		}
		if o.Seconds != 0 {
			b.Seconds = o.Seconds
		}
	}
	return b
}

// Pricing returns the configured price of a model reference's provider.
func (c *Config) Pricing(modelRef string) (PricingConfig, bool) {
	provider, _, _ := strings.Cut(modelRef, "/")
	p, ok := c.Models.Providers[provider]
	if !ok || p.Pricing == nil {
		return PricingConfig{}, false
	}
	return *p.Pricing, true
}

// Price is the cost in USD of input and output tokens on modelRef, and
// false when its provider has no pricing.
func (c *Config) Price(modelRef string, input, output int64) (float64, bool) {
	p, ok := c.Pricing(modelRef)
	if !ok {
		return 0, false
	}
	return (float64(input)*p.InputPerMillion + float64(output)*p.OutputPerMillion) / 1e6, true
}

// A2AEnabled reports whether the A2A surface is served.
func (c *Config) A2AEnabled() bool { return c.A2A.Enabled == nil || *c.A2A.Enabled }

// A2ACardPublic reports whether agent id's card is served without a token
// (a2a.publicCards; default: the default agent's only).
func (c *Config) A2ACardPublic(id string) bool {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(c.A2A.PublicCards) == 0 {
		return id == c.DefaultAgentID()
	}
	for _, p := range c.A2A.PublicCards {
		if p = strings.ToLower(strings.TrimSpace(p)); p == "*" || p == id {
			return true
		}
	}
	return false
}

// A2AExposed returns the agent ids served over A2A, lowercase, in config
// order.
func (c *Config) A2AExposed() []string {
	if !c.A2AEnabled() {
		return nil
	}
	if len(c.A2A.Expose) == 0 {
		return c.AgentIDs()
	}
	out := make([]string, 0, len(c.A2A.Expose))
	for _, id := range c.A2A.Expose {
		out = append(out, strings.ToLower(strings.TrimSpace(id)))
	}
	return out
}
