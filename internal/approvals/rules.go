package approvals

import (
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
)

// Tools as approvals.rules[].tool names them.
const (
	ToolSend  = "send"
	ToolSpawn = "spawn"
)

// ToolLoopsResume is the tool of an approval that asks to resume an edge
// the loop breaker paused (raised by the breaker, not by a rule).
const ToolLoopsResume = "loops.resume"

// Call is what a rule is matched against: one sessions_send or
// sessions_spawn about to be carried out.
type Call struct {
	// Tool is ToolSend or ToolSpawn.
	Tool           string
	RequesterKey   string
	RequesterAgent string
	// TargetKey is the target session of a send; empty for a spawn.
	TargetKey   string
	TargetAgent string
	// TargetChannel and ChatType are the target session's (sends).
	TargetChannel string
	ChatType      string
	// Remote marks a send to an agent of a2a.remotes.
	Remote bool
}

// Match returns the index of the first rule that matches c.
func Match(rules []config.ApprovalRule, c Call) (int, bool) {
	for i, r := range rules {
		if matches(r, c) {
			return i, true
		}
	}
	return -1, false
}

func matches(r config.ApprovalRule, c Call) bool {
	if r.Tool != "" && r.Tool != c.Tool {
		return false
	}
	if r.Remote != nil && *r.Remote != c.Remote {
		return false
	}
	if c.Tool == ToolSpawn && (r.TargetChannel != "" || r.ChatType != "" || r.Remote != nil) {
		// Criteria of a target session: a spawn's child has none yet.
		return false
	}
	return field(r.RequesterAgent, c.RequesterAgent) && field(r.TargetAgent, c.TargetAgent) &&
		field(r.TargetChannel, c.TargetChannel) && field(r.ChatType, c.ChatType)
}

// field matches one criterion: empty or "*" matches anything, else the
// value, case-insensitively.
func field(want, got string) bool {
	want = strings.TrimSpace(want)
	return want == "" || want == "*" || strings.EqualFold(want, got)
}

// Edge names what an allow-always of a call matched by rule allows from
// then on: the same rule, tool, requester session and target (the target
// session of a send, the agent of a spawn).
func Edge(rule int, c Call) string {
	target := c.TargetKey
	if c.Tool == ToolSpawn || target == "" {
		target = "agent:" + c.TargetAgent
	}
	return fmt.Sprintf("rule %d: %s %s → %s", rule, c.Tool, c.RequesterKey, target)
}
