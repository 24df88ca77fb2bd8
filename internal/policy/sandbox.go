package policy

import "github.com/switchboard-go/switchboard/internal/config"

// Sandboxed reports whether a session of agentID runs sandboxed. The
// configuration in effect decides; the session row's flag (rowFlag,
// recorded when the session was created) can only add the sandbox — it is
// how a child inherits its sandboxed requester's — never remove it. A
// session created before its agent's sandbox was turned on (the agent's
// main session, which survives resets) is sandboxed as soon as the
// configuration says so.
func Sandboxed(cfg *config.Config, agentID string, rowFlag bool) bool {
	return rowFlag || cfg.AgentSandboxed(agentID)
}
