package domain

import "encoding/json"

// RunStatus is where a run is in its life: queued, then running, then
// one of the terminal statuses.
type RunStatus string

// Run statuses.
const (
	// RunQueued: recorded, waiting for its lane (or for a process that
	// serves, when held).
	RunQueued RunStatus = "queued"
	// RunRunning: a runtime is carrying it out.
	RunRunning RunStatus = "running"
	// RunOK: it ended with a reply (possibly a silence token).
	RunOK RunStatus = "ok"
	// RunError: it ended with an error (model, tool loop, undecodable
	// spec, or aborted by a shutdown).
	RunError RunStatus = "error"
	// RunTimeout: it ran past its timeout.
	RunTimeout RunStatus = "timeout"
	// RunCancelled: it was cancelled (runs cancel, /stop, a cancelled parent).
	RunCancelled RunStatus = "cancelled"
)

// RunTerminal reports whether a run status is final.
func RunTerminal(status RunStatus) bool {
	switch status {
	case RunOK, RunError, RunTimeout, RunCancelled:
		return true
	}
	return false
}

// RunKind says why a run exists; it picks the lane and the post-run work.
type RunKind string

// Run kinds.
const (
	// RunKindChat: a user message arriving on a channel.
	RunKindChat RunKind = "chat"
	// RunKindAgent: the gateway `agent` method or the CLI.
	RunKindAgent RunKind = "agent"
	// RunKindSend: the primary run of a sessions_send, on the target.
	RunKindSend RunKind = "send"
	// RunKindReply: a reply-back (ping-pong) turn of an exchange.
	RunKindReply RunKind = "reply"
	// RunKindAnnounce: the announce step of an exchange, on the target.
	RunKindAnnounce RunKind = "announce"
	// RunKindSubagent: a sessions_spawn child's run.
	RunKindSubagent RunKind = "subagent"
	// RunKindInbound: a sub-agent's announce delivered to its requester.
	RunKindInbound RunKind = "inbound"
)

// Lane is a runtime queue; each bounds how many of its runs run at once
// (runtime.lanes in the config).
type Lane string

// Lanes.
const (
	// LaneMain: runs started by people (chat, agent, inbound announces).
	LaneMain Lane = "main"
	// LaneNested: runs started by other runs (sends, reply turns, announces).
	LaneNested Lane = "nested"
	// LaneSubagent: sub-agent runs.
	LaneSubagent Lane = "subagent"
)

// Run is one durable unit of agent work on one session. Times are Unix ms.
type Run struct {
	ID             string  `json:"runId"`
	SessionKey     string  `json:"sessionKey"`
	SessionID      string  `json:"sessionId,omitempty"`
	AgentID        string  `json:"agentId"`
	Kind           RunKind `json:"kind"`
	Lane           Lane    `json:"lane"`
	ParentRunID    string  `json:"parentRunId,omitempty"`
	RequesterKey   string  `json:"requesterKey,omitempty"`
	IdempotencyKey string  `json:"idempotencyKey,omitempty"`

	Status  RunStatus `json:"status"`
	Message string    `json:"message,omitempty"` // the inbound user text
	Reply   string    `json:"reply,omitempty"`
	Error   string    `json:"error,omitempty"`
	Usage   Usage     `json:"usage"`

	// Spec is the kind-specific request, kept as JSON so the engine can
	// resume or finish the work after a restart (extra system context,
	// provenance, model override, timeouts, reply-back and announce state).
	Spec json.RawMessage `json:"spec,omitempty"`

	// Attempt counts the times the run was started: 1, or 2 once a run a
	// stopped process left running (before any of its tool calls ran) was
	// queued again. A run is never re-queued past attempt 2.
	Attempt int `json:"attempt,omitempty"`

	// TraceID is the OpenTelemetry trace the run belongs to, and
	// TraceURL its link in the trace viewer (tracing.linkTemplate); both
	// are read from Spec when a run is shown, never stored apart.
	TraceID  string `json:"traceId,omitempty"`
	TraceURL string `json:"traceUrl,omitempty"`

	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	CreatedAt int64 `json:"createdAt"`
	StartedAt int64 `json:"startedAt,omitempty"`
	EndedAt   int64 `json:"endedAt,omitempty"`
	UpdatedAt int64 `json:"updatedAt,omitempty"`
}

// OutboxStatus is where an outbox item is in its delivery.
type OutboxStatus string

// Outbox statuses.
const (
	// OutboxPending: not delivered yet; attempted when NextAttemptAt is due.
	OutboxPending OutboxStatus = "pending"
	// OutboxDelivered: delivered (at least once).
	OutboxDelivered OutboxStatus = "delivered"
	// OutboxFailed: given up on (a permanent error, or the retry budget spent).
	OutboxFailed OutboxStatus = "failed"
)

// OutboxKind says what an outbox item delivers, and so which deliverer
// handles it.
type OutboxKind string

// Outbox kinds.
const (
	// OutboxAnnounce: an agent-to-agent announce reply, to the target's channel.
	OutboxAnnounce OutboxKind = "announce"
	// OutboxSubagentAnnounce: a child's result, to its requester session.
	OutboxSubagentAnnounce OutboxKind = "subagent_announce"
	// OutboxDelivery: a plain channel message (gateway `send`).
	OutboxDelivery OutboxKind = "delivery"
	// OutboxCleanup: deferred sub-agent cleanup (archive).
	OutboxCleanup OutboxKind = "cleanup"
)

// OutboxItem is one message to deliver at least once. IdempotencyKey is
// unique, so enqueueing the same delivery twice keeps one row.
type OutboxItem struct {
	ID             int64           `json:"id"`
	IdempotencyKey string          `json:"idempotencyKey"`
	Kind           OutboxKind      `json:"kind"`
	SessionKey     string          `json:"sessionKey"` // the session delivered to
	RunID          string          `json:"runId,omitempty"`
	Channel        string          `json:"channel,omitempty"`
	To             string          `json:"to,omitempty"`
	Payload        json.RawMessage `json:"payload"`
	Status         OutboxStatus    `json:"status"`
	Attempts       int             `json:"attempts"`
	LastError      string          `json:"lastError,omitempty"`
	NextAttemptAt  int64           `json:"nextAttemptAt"`
	CreatedAt      int64           `json:"createdAt"`
	DeliveredAt    int64           `json:"deliveredAt,omitempty"`
}

// Strings converts typed values (run statuses, kinds, lanes, outbox
// states) to plain strings, for the boundaries that speak strings (SQL,
// URLs, flags).
func Strings[T ~string](vs []T) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// Typed converts plain strings to typed values (the inverse of Strings).
func Typed[T ~string](ss []string) []T {
	if ss == nil {
		return nil
	}
	out := make([]T, len(ss))
	for i, s := range ss {
		out[i] = T(s)
	}
	return out
}
