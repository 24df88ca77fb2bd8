package approvals

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// OutboxKind is a call held for an operator's decision: an outbox item
// due at the approval's expiry, or at once when it is decided. Its
// delivery (Approver.Deliver) carries the held call out (allowed) and
// tells the requester session the outcome, so a decision survives a
// restart and the call runs once: the replay's idempotency key is the
// approval's.
const OutboxKind domain.OutboxKind = "approval"

// TxRecorder records an audit entry inside a transaction (audit.Log).
type TxRecorder interface {
	RecordTx(tx domain.Tx, e audit.Entry) error
}

// Options are an Approver's dependencies; all are required.
type Options struct {
	Store domain.Store
	// Config is the configuration in effect (approvals.rules and the
	// expiry are read at each call, so a reload takes effect).
	Config func() *config.Config
	// AgentOf is the agent of a session key.
	AgentOf func(key string) string
	// Audit records a decision in the transaction that makes it durable.
	Audit TxRecorder
	// Publish tells live clients an approval was raised or decided.
	Publish func(domain.Event)
	// Poke wakes the outbox worker (a decided approval's item is due).
	Poke func()
	// Send and Spawn carry out an allowed call as its requester, under
	// the approval's idempotency key, outside the requester's run (its
	// tool call has returned).
	Send  func(ctx context.Context, a domain.Approval, p api.SendRequest) (api.SendResult, error)
	Spawn func(ctx context.Context, a domain.Approval, p api.SpawnRequest) (api.SpawnResult, error)
	// Resume resumes an edge the loop breaker paused and returns how many
	// held messages it released.
	Resume func(ctx context.Context, from, to string) (int, error)
	// Post writes a message into a session (created when missing), where
	// its agent reads it on its next turn.
	Post func(ctx context.Context, key string, msg domain.Message) error
	// IsOwner reports whether sender on channel is an owner
	// (session.owners): only owners decide from a chat.
	IsOwner func(channel, sender string) bool
	// Log is where holds and decisions are logged (default: nowhere).
	Log   *slog.Logger
	Now   func() time.Time
	NewID func() string
}

// Approver holds the calls approvals.rules match until an operator
// decides, records the decisions, and carries an allowed call out once.
// The approvals are rows of the store, each with an outbox item
// (OutboxKind) that delivers its outcome.
type Approver struct {
	o       Options
	waiters Waiters
	// lastStamp is the last creation stamp handed out: approvals are
	// listed newest first by it, so two made in one millisecond must not
	// tie.
	lastStamp atomic.Int64
}

// New builds an Approver.
func New(o Options) *Approver {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Approver{o: o}
}

func (ap *Approver) nowMs() int64 { return ap.o.Now().UnixMilli() }

// stampMs is the creation time of a new approval: the clock, moved past
// the last stamp when the clock has not moved on.
func (ap *Approver) stampMs() int64 {
	for {
		last, now := ap.lastStamp.Load(), ap.nowMs()
		if now <= last {
			now = last + 1
		}
		if ap.lastStamp.CompareAndSwap(last, now) {
			return now
		}
	}
}

// heldCall is the call an approval holds, replayed as it was made.
type heldCall struct {
	Send  *api.SendRequest  `json:"send,omitempty"`
	Spawn *api.SpawnRequest `json:"spawn,omitempty"`
	// Resume is a paused edge of the loop breaker to resume.
	Resume *loopEdge `json:"resume,omitempty"`
	// RunID is the requester's run that made the call.
	RunID string `json:"runId,omitempty"`
}

// loopEdge is an edge the loop breaker paused, held in an approval that
// asks an operator to resume it.
type loopEdge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

func heldOf(a domain.Approval) heldCall {
	var h heldCall
	_ = json.Unmarshal(a.Call, &h)
	return h
}

func pendingText(a domain.Approval) string {
	return fmt.Sprintf("held for an operator's approval (approval %s, expires in %s); the outcome is posted into this session",
		a.ID, time.Duration(a.ExpiresAt-a.CreatedAt)*time.Millisecond)
}

func refusedText(a domain.Approval) string {
	if a.Status == domain.ApprovalExpired {
		return fmt.Sprintf("approval %s expired without a decision: the %s was not carried out", a.ID, a.Tool)
	}
	return fmt.Sprintf("approval %s: an operator denied the %s", a.ID, a.Tool)
}

func (ap *Approver) publish(a domain.Approval) {
	ap.o.Publish(domain.Event{Kind: domain.EventApproval, SessionKey: a.RequesterKey, Approval: &a, TS: ap.nowMs()})
}
