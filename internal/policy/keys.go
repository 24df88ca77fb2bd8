package policy

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
)

// defaultAgentID is the agent of the implicit configuration (docs/design.md#state-config-and-defaults).
const defaultAgentID = "main"

// agentIDFromKey returns the <id> of a canonical key agent:<id>:<rest>, or
// "" when the key is not agent-scoped.
func agentIDFromKey(key string) string {
	rest, ok := strings.CutPrefix(strings.ToLower(key), "agent:")
	if !ok {
		return ""
	}
	id, _, ok := strings.Cut(rest, ":")
	if !ok {
		return ""
	}
	return id
}

// stripAgentPrefix removes a leading agent:<id>: from key.
func stripAgentPrefix(key string) string {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return key
	}
	if _, after, ok := strings.Cut(rest, ":"); ok {
		return after
	}
	return key
}

// configuredAgents returns the ids of agents.list in config order. An empty
// list means the implicit single agent "main".
func configuredAgents(cfg *config.Config) []config.AgentConfig {
	if cfg == nil || len(cfg.Agents.List) == 0 {
		return []config.AgentConfig{{ID: defaultAgentID}}
	}
	return cfg.Agents.List
}

// findAgent returns the configured agent with id (case-insensitive).
func findAgent(cfg *config.Config, id string) (config.AgentConfig, bool) {
	for _, a := range configuredAgents(cfg) {
		if strings.EqualFold(a.ID, id) {
			return a, true
		}
	}
	return config.AgentConfig{}, false
}

// normalizeID trims and lowercases an agent id, as keys are lowercase.
func normalizeID(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// clip shortens s to at most n runes for error messages, so hostile input
// cannot blow up an error string.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
