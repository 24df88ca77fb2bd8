package api

import "github.com/switchboard-go/switchboard/internal/attachments"

// SpawnRequest are sessions_spawn's parameters.
type SpawnRequest struct {
	Task              string
	Label             string
	AgentID           string
	Model             string
	Thinking          string
	RunTimeoutSeconds *int
	Thread            bool
	Mode              string
	Cleanup           string
	Sandbox           string
	Attachments       []attachments.Spec
	MountPath         string
	IdempotencyKey    string
}

// SpawnResult is the payload of an accepted sessions_spawn.
type SpawnResult struct {
	Status          string               `json:"status"`
	ChildSessionKey string               `json:"childSessionKey"`
	RunID           string               `json:"runId"`
	Mode            string               `json:"mode"`
	Note            string               `json:"note,omitempty"`
	ModelApplied    string               `json:"modelApplied,omitempty"`
	Attachments     *attachments.Receipt `json:"attachments,omitempty"`
}

// SubagentsRequest is the subagents tool: list the requester's children,
// or cancel one (a runId, a childSessionKey or "all").
type SubagentsRequest struct {
	Action string
	Target string
}

// ChildRow is one sub-agent in the subagents tool's list.
type ChildRow struct {
	RunID           string `json:"runId"`
	ChildSessionKey string `json:"childSessionKey"`
	Label           string `json:"label,omitempty"`
	Status          string `json:"status"`
	StartedAt       int64  `json:"startedAt,omitempty"`
	EndedAt         int64  `json:"endedAt,omitempty"`
	RuntimeMs       int64  `json:"runtimeMs,omitempty"`
	TotalTokens     int64  `json:"totalTokens,omitempty"`
	Error           string `json:"error,omitempty"`
}
