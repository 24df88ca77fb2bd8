package policy

import (
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
)

// sessionTools are the tools sub-agents lose by default.
func sessionTools() []string {
	return []string{api.ToolSessionsList, api.ToolSessionsHistory, api.ToolSessionsSend, api.ToolSessionsSpawn, api.ToolAgentsList, api.ToolSubagents,
		api.ToolSessionStatus, api.ToolSessionsYield, api.ToolSessionsSearch}
}

// isSpawnTool reports whether name is a tool that creates sub-agents or
// waits for them (sessions_yield ends a turn until a child's announce: a
// sub-agent that may not spawn has nothing to wait for).
func isSpawnTool(name string) bool {
	return name == api.ToolSessionsSpawn || name == api.ToolSubagents || name == api.ToolSessionsYield
}

// SubagentTools returns the tools of a sub-agent at spawn depth depth
// (1 = spawned by a top-level session), in the order of all:
//   - without tools.subagents.tools.allow, every tool except the session
//     tools; sub-agents that may still spawn (depth < maxDepth) keep
//     sessions_spawn and subagents so they can orchestrate;
//   - with an allow list, only the tools it names (globs with '*');
//   - then tools.subagents.tools.deny removes tools (globs with '*');
//   - sessions_spawn and subagents never survive when depth >= maxDepth.
func SubagentTools(cfg *config.Config, all []string, depth, maxDepth int) []string {
	var filter config.ToolFilter
	if cfg != nil {
		filter = cfg.Tools.Subagents.Tools
	}
	canSpawn := depth < maxDepth
	out := []string{}
	for _, name := range all {
		if slices.Contains(out, name) {
			continue
		}
		if isSpawnTool(name) && !canSpawn {
			continue
		}
		if hasPatterns(filter.Allow) {
			if !matchesAny(filter.Allow, name) {
				continue
			}
		} else if slices.Contains(sessionTools(), name) && !isSpawnTool(name) {
			continue
		}
		if matchesAny(filter.Deny, name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// matchesAny reports whether name matches one of the tool patterns.
func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p = strings.TrimSpace(p); p != "" && globMatch(p, name) {
			return true
		}
	}
	return false
}

// hasPatterns reports whether the list holds a non-blank pattern.
func hasPatterns(patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return strings.TrimSpace(p) != "" })
}
