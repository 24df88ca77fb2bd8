// Package policy holds switchboard's access decisions as pure functions over
// the configuration and facts about sessions: the send policy, session-tool
// visibility, agent-to-agent access, the sessions_spawn allowlist and the
// tool set of sub-agents. Nothing here does I/O; callers gather the facts
// (from the store) and act on the decision. Every refusal carries a reason
// or a client-safe error message that names the config key to change.
package policy
