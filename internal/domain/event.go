package domain

// Event kinds published by the engine to connected clients.
const (
	EventRunStart = "run.start"
	EventRunEnd   = "run.end"
	EventMessage  = "message"
	EventSession  = "session"
	EventOutbox   = "outbox"
	// EventLoopPaused: the loop breaker paused an edge (Reason says why).
	EventLoopPaused = "loop.paused"
	// EventApproval: an approval was raised or decided (Approval).
	EventApproval = "approval"
)

// Event is something that happened, for live clients (gateway events, web
// UI). Events are best-effort notifications; the store is the truth.
type Event struct {
	Kind       string      `json:"kind"`
	SessionKey string      `json:"sessionKey,omitempty"`
	Run        *Run        `json:"run,omitempty"`
	Message    *Message    `json:"message,omitempty"`
	Delta      *RunDelta   `json:"delta,omitempty"` // a streamed piece (EventDelta)
	Session    *Session    `json:"session,omitempty"`
	Outbox     *OutboxItem `json:"outbox,omitempty"`
	Progress   *Progress   `json:"progress,omitempty"`
	// Approval is the approval of an EventApproval.
	Approval *Approval `json:"approval,omitempty"`
	// Reason says why a session event happened (created, updated, deleted, reset).
	Reason string `json:"reason,omitempty"`
	TS     int64  `json:"ts"`
	// Replica names the replica where it happened when that is another
	// one (read back from the store); empty for this process's own events,
	// which are the only ones told to the other replicas.
	Replica string `json:"-"`
}
