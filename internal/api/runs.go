package api

import (
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// WaitRequest waits for a run to end, up to Timeout.
type WaitRequest struct {
	RunID   string
	Timeout time.Duration
}

// WaitResult is the payload of runs_wait.
type WaitResult struct {
	RunID     string           `json:"runId"`
	Status    domain.RunStatus `json:"status"`
	Reply     string           `json:"reply,omitempty"`
	Error     string           `json:"error,omitempty"`
	StartedAt int64            `json:"startedAt,omitempty"`
	EndedAt   int64            `json:"endedAt,omitempty"`
	// WaitTimedOut is true when the wait ended before the run did (the
	// run's own status then is queued or running).
	WaitTimedOut bool `json:"waitTimedOut,omitempty"`
}

// CancelResult is the answer of a cancel: the run as it is after the
// cancel, whether this call cancelled it, and whether the run had already
// ended before the call (its status is then the one it ended with). Both
// false: the run ended on its own while being cancelled.
type CancelResult struct {
	domain.Run
	Cancelled    bool `json:"cancelled"`
	AlreadyEnded bool `json:"alreadyEnded"`
}

// RunsRequest selects runs, newest first.
type RunsRequest = domain.RunQuery

// OutboxRequest selects outbox rows.
type OutboxRequest = domain.OutboxQuery

// OutboxStatuses are the statuses an outbox row has, and an outbox
// listing filters on.
var OutboxStatuses = []domain.OutboxStatus{domain.OutboxPending, domain.OutboxDelivered, domain.OutboxFailed}
