package domain

import "encoding/json"

// Run statuses.
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunOK        = "ok"
	RunError     = "error"
	RunTimeout   = "timeout"
	RunCancelled = "cancelled"
)

// RunTerminal reports whether a run status is final.
func RunTerminal(status string) bool {
	switch status {
	case RunOK, RunError, RunTimeout, RunCancelled:
		return true
	}
	return false
}

// Run kinds say why a run exists; they pick the lane and the post-run work.
const (
	RunKindChat     = "chat"     // a user message arriving on a channel
	RunKindAgent    = "agent"    // gateway `agent` method or CLI
	RunKindSend     = "send"     // sessions_send primary run
	RunKindReply    = "reply"    // reply-back (ping-pong) turn
	RunKindAnnounce = "announce" // agent-to-agent announce step
	RunKindSubagent = "subagent" // sessions_spawn child run
	RunKindInbound  = "inbound"  // a sub-agent announce delivered to its requester
)

// Lanes bound how many runs of each kind run at once.
const (
	LaneMain     = "main"
	LaneNested   = "nested"
	LaneSubagent = "subagent"
)

// Run is one durable unit of agent work on one session. Times are Unix ms.
type Run struct {
	ID             string `json:"runId"`
	SessionKey     string `json:"sessionKey"`
	SessionID      string `json:"sessionId,omitempty"`
	AgentID        string `json:"agentId"`
	Kind           string `json:"kind"`
	Lane           string `json:"lane"`
	ParentRunID    string `json:"parentRunId,omitempty"`
	RequesterKey   string `json:"requesterKey,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"`

	Status  string `json:"status"`
	Message string `json:"message,omitempty"` // the inbound user text
	Reply   string `json:"reply,omitempty"`
	Error   string `json:"error,omitempty"`
	Usage   Usage  `json:"usage"`

	// Spec is the kind-specific request, kept as JSON so the engine can
	// resume or finish the work after a restart (extra system context,
	// provenance, model override, timeouts, reply-back and announce state).
	Spec json.RawMessage `json:"spec,omitempty"`

	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	CreatedAt int64 `json:"createdAt"`
	StartedAt int64 `json:"startedAt,omitempty"`
	EndedAt   int64 `json:"endedAt,omitempty"`
	UpdatedAt int64 `json:"updatedAt,omitempty"`
}

// Outbox statuses.
const (
	OutboxPending   = "pending"
	OutboxDelivered = "delivered"
	OutboxFailed    = "failed"
)

// Outbox kinds.
const (
	OutboxAnnounce         = "announce"          // agent-to-agent announce reply to the target channel
	OutboxSubagentAnnounce = "subagent_announce" // a child's result to its requester session
	OutboxDelivery         = "delivery"          // a plain channel delivery (gateway `send`)
	OutboxCleanup          = "cleanup"           // deferred sub-agent cleanup (delete/archive)
)

// OutboxItem is one message to deliver at least once. IdempotencyKey is
// unique, so enqueueing the same delivery twice keeps one row.
type OutboxItem struct {
	ID             int64           `json:"id"`
	IdempotencyKey string          `json:"idempotencyKey"`
	Kind           string          `json:"kind"`
	SessionKey     string          `json:"sessionKey"` // the session delivered to
	RunID          string          `json:"runId,omitempty"`
	Channel        string          `json:"channel,omitempty"`
	To             string          `json:"to,omitempty"`
	Payload        json.RawMessage `json:"payload"`
	Status         string          `json:"status"`
	Attempts       int             `json:"attempts"`
	LastError      string          `json:"lastError,omitempty"`
	NextAttemptAt  int64           `json:"nextAttemptAt"`
	CreatedAt      int64           `json:"createdAt"`
	DeliveredAt    int64           `json:"deliveredAt,omitempty"`
}
