package policy

import (
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Visibility modes of tools.sessions.visibility, narrowest first.
const (
	VisibilitySelf  = "self"
	VisibilityTree  = "tree"
	VisibilityAgent = "agent"
	VisibilityAll   = "all"
)

// Sandbox clamps of agents.defaults.sandbox.sessionToolsVisibility.
const (
	SandboxVisibilitySpawned = "spawned"
	SandboxVisibilityAll     = "all"
)

// NormalizeVisibility returns the visibility mode named by s
// (case-insensitive); anything else, including "", is tree.
func NormalizeVisibility(s string) string {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case VisibilitySelf, VisibilityTree, VisibilityAgent, VisibilityAll:
		return v
	}
	return VisibilityTree
}

// visibilityRank orders modes from narrowest to widest.
func visibilityRank(mode string) int {
	switch mode {
	case VisibilitySelf:
		return 0
	case VisibilityTree:
		return 1
	case VisibilityAgent:
		return 2
	}
	return 3
}

// TargetFacts describe the session a session tool wants to reach.
type TargetFacts struct {
	// Key is the target's canonical key.
	Key string
	// AgentID is the target's agent; empty means the agent of Key, or the
	// default agent for keys that are not agent-scoped.
	AgentID string
	// InTree reports whether the target was spawned from the requester,
	// directly or transitively (the caller computes it from the store).
	InTree bool
}

// Visibility is the session-tool visibility of one requester session: which
// other sessions its list, history, send and status calls may reach.
//
// Decisions (docs/design.md#visibility; OpenClaw differs where noted):
//   - Modes nest: self ⊂ tree ⊂ agent ⊂ all. The requester's own session is
//     always visible.
//   - tree is the requester plus every session spawned from it
//     transitively, not only its direct children (OpenClaw stops at direct
//     children, so a grandchild a child spawned was invisible to its root).
//   - Sessions of another agent are reachable only with mode all and
//     tools.agentToAgent allowing both agents, even when they are in the
//     requester's tree: cross-agent access is governed by one rule, and a
//     cross-agent child still announces its result to its requester.
//   - The sandbox clamp (requester sandboxed and
//     agents.defaults.sandbox.sessionToolsVisibility = "spawned", the
//     default) makes the effective mode the narrower of the configured mode
//     and tree. It never widens self (OpenClaw turns self into tree). It
//     applies to sandboxed sub-agent requesters too (OpenClaw exempts them).
//
// The zero Visibility refuses every target; use NewVisibility.
type Visibility struct {
	requesterKey   string
	requesterAgent string
	mode           string
	defaultAgent   string
	restricted     bool
	a2a            A2A
}

// NewVisibility builds the visibility of requesterKey (an agent of
// requesterAgent; empty means the agent named by the key). sandboxed says
// whether the requester session runs sandboxed.
func NewVisibility(cfg *config.Config, requesterKey, requesterAgent string, sandboxed bool) Visibility {
	v := Visibility{
		requesterKey:   strings.ToLower(strings.TrimSpace(requesterKey)),
		requesterAgent: normalizeID(requesterAgent),
		defaultAgent:   DefaultAgent(cfg),
		a2a:            NewA2A(cfg),
	}
	if v.requesterAgent == "" {
		v.requesterAgent = agentIDFromKey(v.requesterKey)
	}
	if v.requesterAgent == "" {
		v.requesterAgent = v.defaultAgent
	}
	var configured, clamp string
	if cfg != nil {
		configured = cfg.Tools.Sessions.Visibility
		clamp = cfg.Agents.Defaults.Sandbox.SessionToolsVisibility
	}
	v.mode = NormalizeVisibility(configured)
	// Only an explicit "all" lifts the clamp; unset means "spawned".
	if sandboxed && !strings.EqualFold(strings.TrimSpace(clamp), SandboxVisibilityAll) {
		v.restricted = true
		if visibilityRank(v.mode) > visibilityRank(VisibilityTree) {
			v.mode = VisibilityTree
		}
	}
	return v
}

// Mode returns the effective visibility mode (after the sandbox clamp).
func (v Visibility) Mode() string { return v.mode }

// Restricted reports whether the requester is sandboxed and clamped to its
// own tree; refusals then say the session is not visible from a sandbox.
func (v Visibility) Restricted() bool { return v.restricted }

// RequesterKey returns the requester's session key (lowercased).
func (v Visibility) RequesterKey() string { return v.requesterKey }

// RequesterAgent returns the requester's agent id.
func (v Visibility) RequesterAgent() string { return v.requesterAgent }

// A2A returns the agent-to-agent policy the visibility applies.
func (v Visibility) A2A() A2A { return v.a2a }

// Check returns nil when the requester may perform action on target, else a
// CodeForbidden *domain.Error with OpenClaw's message for the refusal.
func (v Visibility) Check(target TargetFacts, action Action) error {
	key := strings.ToLower(strings.TrimSpace(target.Key))
	if key != "" && key == v.requesterKey {
		return nil
	}
	targetAgent := normalizeID(target.AgentID)
	if targetAgent == "" {
		targetAgent = agentIDFromKey(key)
	}
	if targetAgent == "" {
		// Keys that are not agent-scoped belong to the default agent.
		targetAgent = v.defaultAgent
	}

	if targetAgent != v.requesterAgent {
		switch {
		case v.restricted:
			return v.sandboxDenied(target.Key)
		case v.mode != VisibilityAll:
			return forbidden(action.String() + " visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.")
		case !v.a2a.Enabled:
			noun, object := action.a2aWords()
			return forbidden("Agent-to-agent " + noun + " is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent " + object + ".")
		case !v.a2a.Allowed(v.requesterAgent, targetAgent):
			noun, _ := action.a2aWords()
			return forbidden("Agent-to-agent " + noun + " denied by tools.agentToAgent.allow.")
		}
		return nil
	}

	switch v.mode {
	case VisibilityAgent, VisibilityAll:
		return nil
	case VisibilityTree:
		if target.InTree {
			return nil
		}
		if v.restricted {
			return v.sandboxDenied(target.Key)
		}
		return forbidden(action.String() + " visibility is restricted to the current session tree (tools.sessions.visibility=tree).")
	}
	if v.restricted {
		return v.sandboxDenied(target.Key)
	}
	return forbidden(action.String() + " visibility is restricted to the current session (tools.sessions.visibility=self).")
}

func (v Visibility) sandboxDenied(key string) error {
	return forbidden("Session not visible from this sandboxed agent session: " + clip(key, 256))
}

func forbidden(msg string) error { return &domain.Error{Code: domain.CodeForbidden, Message: msg} }

// ListScope tells the engine how to query the store for sessions_list so
// the query returns exactly the visible rows, or a superset to filter.
type ListScope struct {
	// SelfOnly means only the requester's own session is visible.
	SelfOnly bool
	// TreeRoot, when set, keeps the root and every session spawned from it
	// transitively (domain.SessionQuery.TreeRoot).
	TreeRoot string
	// AgentIDs, when non-nil, keeps rows of these agents; nil means any.
	AgentIDs []string
	// Filter means the query may return rows the requester cannot see (a
	// restrictive tools.agentToAgent.allow list); the engine drops rows
	// for which Check(row, ActionList) fails.
	Filter bool
}

// ListScope returns the store query scope of the effective mode:
//   - self: the requester's key only;
//   - tree: the requester's tree, within its own agent;
//   - agent: every session of the requester's agent;
//   - all: every session when agent-to-agent is enabled and admits every
//     agent; the requester's agent only when agent-to-agent is disabled or
//     does not admit the requester; the listed agents and the requester's
//     when the allow list names ids only; otherwise (patterns) every
//     session, filtered.
func (v Visibility) ListScope() ListScope {
	own := []string{v.requesterAgent}
	switch v.mode {
	case VisibilitySelf:
		return ListScope{SelfOnly: true, AgentIDs: own}
	case VisibilityTree:
		return ListScope{TreeRoot: v.requesterKey, AgentIDs: own}
	case VisibilityAgent:
		return ListScope{AgentIDs: own}
	}
	switch {
	case !v.a2a.Enabled, !v.a2a.matches(v.requesterAgent):
		return ListScope{AgentIDs: own}
	case v.a2a.AllowsAny():
		return ListScope{}
	}
	if agents, ok := v.a2a.exactAgents(); ok {
		if !slices.Contains(agents, v.requesterAgent) {
			agents = append(agents, v.requesterAgent)
		}
		return ListScope{AgentIDs: agents}
	}
	return ListScope{Filter: true}
}

// DefaultAgent returns the default agent id: the agents.list entry marked
// default, else the first one, else "main".
func DefaultAgent(cfg *config.Config) string {
	agents := configuredAgents(cfg)
	for _, a := range agents {
		if a.Default {
			return normalizeID(a.ID)
		}
	}
	return normalizeID(agents[0].ID)
}
