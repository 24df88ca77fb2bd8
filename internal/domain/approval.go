package domain

import (
	"context"
	"encoding/json"
)

// ApprovalStatus is where an approval stands (OpenClaw's approval
// snapshot statuses).
type ApprovalStatus string

// Approval statuses. Pending is the only one a decision leaves.
const (
	ApprovalPending   ApprovalStatus = "pending"
	ApprovalAllowed   ApprovalStatus = "allowed"
	ApprovalDenied    ApprovalStatus = "denied"
	ApprovalExpired   ApprovalStatus = "expired"
	ApprovalCancelled ApprovalStatus = "cancelled"
)

// Approval is an agent-to-agent call held until an operator decides:
// the call, what matched it, and the decision once there is one.
type Approval struct {
	ID string `json:"id"`
	// Tool is the held tool: sessions_send or sessions_spawn.
	Tool string `json:"tool"`
	// Rule is the index of the approvals.rules entry that matched.
	Rule int `json:"rule"`
	// Edge names what allow-always allows from now on: the rule, the
	// requester session and the target.
	Edge           string `json:"edge"`
	RequesterKey   string `json:"requesterKey"`
	RequesterAgent string `json:"requesterAgent"`
	// TargetKey is the target session (a send) or the spawned agent's
	// id (a spawn).
	TargetKey   string `json:"targetKey"`
	TargetAgent string `json:"targetAgent"`
	// Summary is the reviewer's one-paragraph view of the call.
	Summary string `json:"summary"`
	// Call is the held call's parameters, carried out as they are once
	// allowed.
	Call   json.RawMessage `json:"call"`
	Status ApprovalStatus  `json:"status"`
	// Decision is allow-once, allow-always or deny ("" while pending or
	// when the approval expired).
	Decision string `json:"decision,omitempty"`
	// Resolver names who decided (a token's name, channel:<sender>).
	Resolver   string `json:"resolver,omitempty"`
	CreatedAt  int64  `json:"createdAt"`
	ExpiresAt  int64  `json:"expiresAt"`
	ResolvedAt int64  `json:"resolvedAt,omitempty"`
}

// ApprovalQuery selects approvals, newest first.
type ApprovalQuery struct {
	Statuses []ApprovalStatus
	// Edge and Decision narrow to one edge's approvals with one decision
	// (the standing allow-always of an edge).
	Edge     string
	Decision string
	Offset   int
	Limit    int
}

// ApprovalTx is the write side of the approvals, implemented by the Tx
// of every store that keeps them.
type ApprovalTx interface {
	// GetApproval returns ErrNotFound when id has no row.
	GetApproval(id string) (Approval, error)
	// PutApproval inserts or replaces the row with a.ID.
	PutApproval(a Approval) error
}

// ApprovalReader is the read side of the approvals.
type ApprovalReader interface {
	GetApproval(ctx context.Context, id string) (Approval, error)
	ListApprovals(ctx context.Context, q ApprovalQuery) ([]Approval, error)
}
