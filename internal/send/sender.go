// Package send is sessions_send carried out: the target resolved (by key
// or label), the agent-to-agent rules (visibility, send policy, the loop
// chain, rate limits and the loop breaker), the run submitted or the
// message only recorded (notify), the wait for the reply, and what
// follows each run of the exchange (reply-back turns, the announce step),
// decided by package exchange. The engine's gate checks the caller first.
package send

import (
	"context"
	"github.com/switchboard-go/switchboard/internal/api"
	"log/slog"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/limits"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
	"github.com/switchboard-go/switchboard/internal/sessions"
)

// Caller is the requester of a send, resolved by the engine's gate.
type Caller struct {
	// Key and Agent are the requester session and its agent; Operator
	// lifts the visibility limits.
	Key, Agent string
	Operator   bool
	// RunID is the run whose tool call sends ("" outside a run): it
	// enables the reply-back loop and loop safety.
	RunID string
	// Hold, when set, may hold the send for an operator's decision
	// (approvals) once its target is resolved and allowed.
	Hold func(ctx context.Context, p api.SendRequest, target, display, channel, chatType string) (api.SendResult, bool, error)
}

func (c Caller) viewer() query.Viewer {
	return query.Viewer{Key: c.Key, Agent: c.Agent, Operator: c.Operator}
}

// Options are a Sender's dependencies; all are required.
type Options struct {
	Store domain.Store
	Keys  sessionkey.Resolver
	// Config is the configuration the engine was built with; Live is the
	// configuration in effect.
	Config   *config.Config
	Live     func() *config.Config
	Reads    query.Reader
	Sessions *sessions.Book
	Guards   *limits.Guards
	Runs     *runs.Runtime
	// Payer is the session whose spawn chain pays for work the requester
	// starts from inside run runID ("" when none).
	Payer func(ctx context.Context, requesterKey, runID string) string
	// Published tells live clients a session changed.
	Published func(key, reason string)
	Log       *slog.Logger
	Now       func() time.Time
}

// Sender carries out sessions_send and the exchange that follows it.
type Sender struct {
	store          domain.Store
	keys           sessionkey.Resolver
	cfg            *config.Config
	conf           func() *config.Config
	reads          query.Reader
	sessions       *sessions.Book
	guards         *limits.Guards
	rt             *runs.Runtime
	payer          func(ctx context.Context, requesterKey, runID string) string
	publishSession func(key, reason string)
	log            *slog.Logger
	now            func() time.Time
}

// New builds a Sender.
func New(o Options) *Sender {
	return &Sender{store: o.Store, keys: o.Keys, cfg: o.Config, conf: o.Live, reads: o.Reads, sessions: o.Sessions,
		guards: o.Guards, rt: o.Runs, payer: o.Payer, publishSession: o.Published, log: o.Log, now: o.Now}
}

func (sd *Sender) nowMs() int64 { return sd.now().UnixMilli() }

// deadlineMargin is kept back from a run's deadline when a wait inside it
// is clamped, so the wait answers before the run itself is stopped.
const deadlineMargin = 50 * time.Millisecond

// clampToDeadline shortens a wait made inside a run to the run's
// remaining time (its context's deadline: runTimeoutSeconds or a seconds
// budget above it).
func clampToDeadline(ctx context.Context, wait time.Duration, inRun bool) time.Duration {
	d, ok := ctx.Deadline()
	if !ok || !inRun {
		return wait
	}
	left := time.Until(d) - deadlineMargin
	if left < wait {
		return max(left, time.Millisecond)
	}
	return wait
}
