package api

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/audit"
)

// Operations of the audit log (docs/operations.md#audit-log): operator
// only, with the admin scope.
const (
	// OpAuditList is OpenClaw's audit.list: run and tool events only.
	OpAuditList Op = "audit.list"
	// OpAuditChain is the whole chain, paged (a switchboard extension).
	OpAuditChain Op = "audit.chain.list"
)

// Limits of the audit reads.
var (
	// AuditListLimit is audit.list's limit (OpenClaw's bounds).
	AuditListLimit = Limit{Name: "limit", Min: 1, Max: 500, Default: 100, Unit: "events"}
	// AuditChainLimit is audit.chain.list's limit.
	AuditChainLimit = Limit{Name: "limit", Min: 1, Max: 1000, Default: 200, Unit: "records"}
	// AuditCursorChars bounds a cursor.
	AuditCursorChars = Limit{Name: "cursor", Min: 1, Max: 32, Unit: "characters", Text: true}
)

// AuditListRequest is audit.list's params (OpenClaw's AuditListParams):
// newest first, filtered; After and Before bound occurredAt (Unix ms).
type AuditListRequest struct {
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	RunID      string `json:"runId,omitempty"`
	// Kind is agent_run or tool_action.
	Kind string `json:"kind,omitempty"`
	// Status is one of AuditStatuses.
	Status string `json:"status,omitempty"`
	After  *int64 `json:"after,omitempty"`
	Before *int64 `json:"before,omitempty"`
	Limit  *int64 `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// AuditActor is who an audit event's action is by.
type AuditActor struct {
	// Type is agent or system.
	Type string `json:"type"`
	ID   string `json:"id"`
}

// AuditEvent is one event of audit.list, in OpenClaw's AuditEvent shape
// (no other fields: its schema allows none).
type AuditEvent struct {
	EventID        string     `json:"eventId"`
	Sequence       int64      `json:"sequence"`
	SourceSequence int64      `json:"sourceSequence"`
	OccurredAt     int64      `json:"occurredAt"`
	Kind           string     `json:"kind"`
	Action         string     `json:"action"`
	Status         string     `json:"status"`
	ErrorCode      string     `json:"errorCode,omitempty"`
	Actor          AuditActor `json:"actor"`
	AgentID        string     `json:"agentId"`
	SessionKey     string     `json:"sessionKey,omitempty"`
	RunID          string     `json:"runId"`
	ToolCallID     string     `json:"toolCallId,omitempty"`
	ToolName       string     `json:"toolName,omitempty"`
	Redaction      string     `json:"redaction"`
}

// AuditListResult is audit.list's answer.
type AuditListResult struct {
	Events     []AuditEvent `json:"events"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// AuditChainRequest pages through the chain, oldest first from Cursor
// (the nextCursor of the page before; "" starts at the oldest kept
// record).
type AuditChainRequest struct {
	Cursor string `json:"cursor,omitempty"`
	Limit  *int64 `json:"limit,omitempty"`
}

// AuditChainResult is a page of the chain: its records, where the kept
// chain starts (the anchor: the last pruned record) and ends (the head),
// so a client can verify it page by page (audit.VerifyPages).
type AuditChainResult struct {
	Anchor     audit.Anchor   `json:"anchor"`
	Head       audit.Anchor   `json:"head"`
	Records    []audit.Record `json:"records"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// Auditor reads the audit log. The engine implements it through its gate,
// the client against a gateway.
type Auditor interface {
	AuditList(ctx context.Context, p Principal, req AuditListRequest) (AuditListResult, error)
	AuditChain(ctx context.Context, p Principal, req AuditChainRequest) (AuditChainResult, error)
}
