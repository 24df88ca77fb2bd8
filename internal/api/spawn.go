package api

import (
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

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
	// Context is isolated (default) or fork (SpawnContexts).
	Context string
	// Budget bounds what the child's tree may spend (see SpawnBudget).
	Budget *SpawnBudget
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
	// Budget is the child's effective budget, when it has one.
	Budget *domain.Budget `json:"budget,omitempty"`
	// ApprovalID names the approval that holds the spawn (status
	// pending_approval).
	ApprovalID string `json:"approvalId,omitempty"`
}

// SubagentsRequest is the subagents tool: list the requester's children,
// or cancel one (a runId, a childSessionKey or "all").
type SubagentsRequest struct {
	Action string
	Target string
}

// ChildRow is one sub-agent in the subagents tool's list.
type ChildRow struct {
	RunID           string           `json:"runId"`
	ChildSessionKey string           `json:"childSessionKey"`
	Label           string           `json:"label,omitempty"`
	Status          domain.RunStatus `json:"status"`
	StartedAt       int64            `json:"startedAt,omitempty"`
	EndedAt         int64            `json:"endedAt,omitempty"`
	RuntimeMs       int64            `json:"runtimeMs,omitempty"`
	TotalTokens     int64            `json:"totalTokens,omitempty"`
	Error           string           `json:"error,omitempty"`
	// Usage is the child session's own and tree usage; Budget what it was
	// given (absent: unbounded); Progress, while it runs, what it is doing.
	Usage    *domain.SessionUsage `json:"usage,omitempty"`
	Budget   *domain.Budget       `json:"budget,omitempty"`
	Progress *domain.Progress     `json:"progress,omitempty"`
}

// SubagentsResult is the subagents tool's payload: the children (list) or
// the runs cancelled (cancel).
type SubagentsResult struct {
	Status string
	// Action is "list" or "cancel"; it picks the payload's shape.
	Action    string
	Subagents []ChildRow
	Cancelled []string
	// Note says why nothing was cancelled (the child had already ended).
	Note string
}

// MarshalJSON writes {status, count, subagents} for a list and
// {status, cancelled, note?} for a cancel.
func (r SubagentsResult) MarshalJSON() ([]byte, error) {
	if r.Action == "cancel" {
		cancelled := r.Cancelled
		if cancelled == nil {
			cancelled = []string{}
		}
		return json.Marshal(struct {
			Status    string   `json:"status"`
			Cancelled []string `json:"cancelled"`
			Note      string   `json:"note,omitempty"`
		}{r.Status, cancelled, r.Note})
	}
	subs := r.Subagents
	if subs == nil {
		subs = []ChildRow{}
	}
	return json.Marshal(struct {
		Status    string     `json:"status"`
		Count     int        `json:"count"`
		Subagents []ChildRow `json:"subagents"`
	}{r.Status, len(subs), subs})
}

// UnmarshalJSON reads either shape.
func (r *SubagentsResult) UnmarshalJSON(b []byte) error {
	var w struct {
		Status    string     `json:"status"`
		Subagents []ChildRow `json:"subagents"`
		Cancelled []string   `json:"cancelled"`
		Note      string     `json:"note"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = SubagentsResult{Status: w.Status, Action: "list", Subagents: w.Subagents, Cancelled: w.Cancelled, Note: w.Note}
	if w.Cancelled != nil {
		r.Action = "cancel"
	}
	return nil
}
