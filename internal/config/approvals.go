package config

import "fmt"

// ApprovalsConfig is `approvals.*`: agent-to-agent calls an operator
// must allow first (docs/operations.md#approvals). No rules, no
// approvals. OpenClaw's `approvals` holds its forwarding of exec and
// plugin prompts; switchboard's rules sit beside them.
type ApprovalsConfig struct {
	// Rules hold a matching sessions_send or sessions_spawn until an
	// operator decides; the first matching rule holds it.
	Rules []ApprovalRule `json:"rules,omitempty"`
	// ExpiresSeconds is how long a held call waits for a decision before
	// it is denied as expired (default 3600).
	ExpiresSeconds int `json:"expiresSeconds,omitempty"`
}

// ApprovalRule is one rule of approvals.rules: every criterion it names
// must match (an empty one matches anything; "*" too).
type ApprovalRule struct {
	// Tool is send (sessions_send), spawn (sessions_spawn) or "" (both).
	Tool string `json:"tool,omitempty"`
	// RequesterAgent is the calling session's agent id.
	RequesterAgent string `json:"requesterAgent,omitempty"`
	// TargetAgent is the target session's agent id (a send), or the agent
	// a spawn would start (a spawn); a remote agent's id of a2a.remotes
	// for an A2A send.
	TargetAgent string `json:"targetAgent,omitempty"`
	// TargetChannel is the target session's channel (discord, telegram,
	// internal, unknown...); sends only.
	TargetChannel string `json:"targetChannel,omitempty"`
	// ChatType is the target session's chat type (direct, group,
	// channel); sends only.
	ChatType string `json:"chatType,omitempty"`
	// Remote true matches only sends to a2a.remotes agents, false only
	// local targets; unset matches both.
	Remote *bool `json:"remote,omitempty"`
}

// DefaultApprovalExpiresSeconds is approvals.expiresSeconds' default.
const DefaultApprovalExpiresSeconds = 3600

// ApprovalExpiry is approvals.expiresSeconds with its default.
func (a ApprovalsConfig) ApprovalExpiry() int {
	if a.ExpiresSeconds > 0 {
		return a.ExpiresSeconds
	}
	return DefaultApprovalExpiresSeconds
}

func (c *Config) checkApprovals(v *checker) {
	a := c.Approvals
	if a.ExpiresSeconds < 0 || a.ExpiresSeconds > 30*24*3600 {
		v.add("approvals.expiresSeconds", "%d must be between 0 and 2592000", a.ExpiresSeconds)
	}
	if len(a.Rules) > 100 {
		v.add("approvals.rules", "%d rules; at most 100", len(a.Rules))
	}
	for i, r := range a.Rules {
		path := fmt.Sprintf("approvals.rules[%d]", i)
		if r.Tool != "" {
			v.oneOf(path+".tool", r.Tool, "send", "spawn")
		}
		if r.ChatType != "" && r.ChatType != "*" {
			v.oneOf(path+".chatType", r.ChatType, "direct", "group", "channel")
		}
		if r.Tool == "spawn" && (r.TargetChannel != "" || r.ChatType != "" || r.Remote != nil) {
			v.add(path, "targetChannel, chatType and remote match sends only (tool is spawn)")
		}
	}
}
