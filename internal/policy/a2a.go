package policy

import (
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
)

// A2A is the agent-to-agent policy of tools.agentToAgent: whether sessions
// of one agent may reach sessions of another.
type A2A struct {
	Enabled bool
	// Allow holds agent id patterns. "*" matches any id; a pattern with a
	// '*' is an anchored, case-insensitive glob; a pattern without one is an
	// exact, case-sensitive id. An empty list allows every agent.
	Allow []string
}

// NewA2A returns the agent-to-agent policy of cfg (disabled when cfg is nil).
func NewA2A(cfg *config.Config) A2A {
	if cfg == nil {
		return A2A{}
	}
	return A2A{Enabled: cfg.Tools.AgentToAgent.Enabled, Allow: cfg.Tools.AgentToAgent.Allow}
}

// Allowed reports whether requesterAgent may reach targetAgent. The same
// agent is always allowed; otherwise the policy must be enabled and both ids
// must match a pattern.
func (a A2A) Allowed(requesterAgent, targetAgent string) bool {
	if requesterAgent == targetAgent {
		return true
	}
	if !a.Enabled {
		return false
	}
	return a.matches(requesterAgent) && a.matches(targetAgent)
}

// AllowsAny reports whether the allow list admits every agent id, so
// cross-agent access needs no per-id check once the policy is enabled.
func (a A2A) AllowsAny() bool {
	patterns := a.patterns()
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if strings.Trim(p, "*") == "" {
			return true
		}
	}
	return false
}

// exactAgents returns the agent ids the allow list admits when it names
// ids only (no '*'). Exact patterns compare case-sensitively with
// lowercased ids, so one that is not lowercase admits no agent.
func (a A2A) exactAgents() ([]string, bool) {
	var out []string
	for _, p := range a.patterns() {
		if strings.Contains(p, "*") {
			return nil, false
		}
		if p == normalizeID(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, true
}

// matches reports whether id matches one of the allow patterns.
func (a A2A) matches(id string) bool {
	patterns := a.patterns()
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if strings.Contains(p, "*") {
			if globMatch(p, id) {
				return true
			}
		} else if p == id {
			return true
		}
	}
	return false
}

// patterns returns the non-blank allow patterns, trimmed. Blank entries are
// ignored, so a list of blanks behaves like an empty list.
func (a A2A) patterns() []string {
	var out []string
	for _, p := range a.Allow {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
