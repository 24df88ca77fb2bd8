package policy

import (
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// defaultModel is the model of agents when neither the agent nor
// agents.defaults names one (docs/design.md#state-config-and-defaults).
const defaultModel = "script"

// SpawnAllowed returns nil when an agent of requesterAgent may spawn a
// sub-agent under targetAgent (empty means its own agent). The allowlist is
// agents.list[].subagents.allowAgents, else
// agents.defaults.subagents.allowAgents; "*" admits every configured agent
// and the requester's own agent is always admitted. A target outside the
// allowlist is CodeForbidden; an admitted but unconfigured target is
// CodeInvalid.
func SpawnAllowed(cfg *config.Config, requesterAgent, targetAgent string) error {
	req, tgt := normalizeID(requesterAgent), normalizeID(targetAgent)
	if tgt == "" {
		tgt = req
	}
	// A remote A2A agent is not an agent this process runs: say so rather
	// than "not allowed", which suggests widening allowAgents would help.
	if _, local := findAgent(cfg, tgt); !local && cfg != nil {
		if _, remote := cfg.Remote(tgt); remote {
			return domain.Invalid("agentId %q is a remote A2A agent (a2a.remotes): remote agents are not sessions_spawn targets; reach it with sessions_send",
				clip(tgt, 64))
		}
	}
	allow := spawnAllowlist(cfg, req)
	if tgt != req && !slices.Contains(allow, "*") && !slices.Contains(allow, tgt) {
		allowed := append([]string{req}, sortedWithout(allow, req)...)
		return domain.Errorf(domain.CodeForbidden, "agentId %q is not allowed for sessions_spawn (allowed: %s)",
			clip(tgt, 64), strings.Join(allowed, ", "))
	}
	if _, ok := findAgent(cfg, tgt); !ok {
		var ids []string
		for _, a := range configuredAgents(cfg) {
			ids = append(ids, normalizeID(a.ID))
		}
		return domain.Invalid("unknown agent id %q (configured: %s)", clip(tgt, 64), strings.Join(ids, ", "))
	}
	return nil
}

// spawnAllowlist returns the normalized allowAgents of requester: its own
// list when set (even empty), else the defaults.
func spawnAllowlist(cfg *config.Config, requester string) []string {
	if cfg == nil {
		return nil
	}
	list := cfg.Agents.Defaults.Subagents.AllowAgents
	if a, ok := findAgent(cfg, requester); ok && a.Subagents != nil && a.Subagents.AllowAgents != nil {
		list = a.Subagents.AllowAgents
	}
	out := make([]string, 0, len(list))
	for _, id := range list {
		if id = normalizeID(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// sortedWithout returns ids sorted, without drop and "*".
func sortedWithout(ids []string, drop string) []string {
	var out []string
	for _, id := range ids {
		if id != drop && id != "*" {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// AgentsListResult is the payload of the agents_list tool.
type AgentsListResult = api.AgentsListResult

// AgentInfo is one agent of agents_list.
type AgentInfo = api.AgentInfo

// AgentsList returns the agents requesterAgent may target with
// sessions_spawn: the requester first, then the others sorted by id.
func AgentsList(cfg *config.Config, requesterAgent string) AgentsListResult {
	req := normalizeID(requesterAgent)
	allow := spawnAllowlist(cfg, req)
	res := AgentsListResult{Requester: req, AllowAny: slices.Contains(allow, "*")}

	others := sortedWithout(allow, req)
	if res.AllowAny {
		others = nil
		for _, a := range configuredAgents(cfg) {
			if id := normalizeID(a.ID); id != req && !slices.Contains(others, id) {
				others = append(others, id)
			}
		}
		slices.Sort(others)
	}
	for _, id := range append([]string{req}, others...) {
		info := AgentInfo{ID: id}
		if a, ok := findAgent(cfg, id); ok {
			info.Name = a.Name
			info.Model = AgentModel(cfg, a)
			info.Configured = true
		}
		res.Agents = append(res.Agents, info)
	}
	return res
}

// AgentModel returns the model reference an agent runs on: its own model,
// else agents.defaults.model, else the built-in "script".
func AgentModel(cfg *config.Config, a config.AgentConfig) string {
	if m := strings.TrimSpace(a.Model); m != "" {
		return m
	}
	if cfg != nil {
		if m := strings.TrimSpace(cfg.Agents.Defaults.Model); m != "" {
			return m
		}
	}
	return defaultModel
}
