// Package spawn is sessions_spawn carried out: a sub-agent's admission
// (depth, live children, sandbox, budget, attachments, a forked context),
// its run, and what follows the child's end — the result announced into
// the requester session through the outbox, the archive, the cleanup. The
// pure parts of a sub-agent's life are package subagent's; the engine's
// gate checks the caller before Spawn is called.
package spawn

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/budget"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
	"github.com/switchboard-go/switchboard/internal/sessions"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// Caller is the requester of a spawn, resolved by the engine's gate.
type Caller struct {
	// Key and Agent are the requester session and its agent.
	Key, Agent string
	// RunID is the run whose tool call spawns ("" outside a run).
	RunID string
	// Hold, when set, may hold the spawn for an operator's decision
	// (approvals) once its agent is chosen and allowed.
	Hold func(ctx context.Context, p api.SpawnRequest, agent string) (api.SpawnResult, bool, error)
}

// Options are a Spawner's dependencies; all are required.
type Options struct {
	Store domain.Store
	Keys  sessionkey.Resolver
	// Config is the configuration the engine was built with (the
	// sub-agent limits and attachments change only with a restart); Live
	// is the configuration in effect.
	Config   *config.Config
	Live     func() *config.Config
	Models   sessions.Models
	Sessions *sessions.Book
	Budgets  budget.Ledger
	Runs     *runs.Runtime
	// Admit takes one unit of work from the rate limits of the sessions.
	Admit func(keys ...string) error
	// Payer is the session whose spawn chain pays for work the requester
	// starts from inside run runID ("" when none).
	Payer func(ctx context.Context, requesterKey, runID string) string
	// Published tells live clients a session changed.
	Published func(key, reason string)
	StateDir  string
	Log       *slog.Logger
	Now       func() time.Time
	NewID     func() string
}

// Spawner carries out sessions_spawn and a sub-agent's end.
type Spawner struct {
	store          domain.Store
	keys           sessionkey.Resolver
	cfg            *config.Config
	conf           func() *config.Config
	models         sessions.Models
	sessions       *sessions.Book
	budgets        budget.Ledger
	rt             *runs.Runtime
	admit          func(keys ...string) error
	payer          func(ctx context.Context, requesterKey, runID string) string
	publishSession func(key, reason string)
	dir            string
	log            *slog.Logger
	now            func() time.Time
	newID          func() string
}

// New builds a Spawner.
func New(o Options) *Spawner {
	return &Spawner{store: o.Store, keys: o.Keys, cfg: o.Config, conf: o.Live, models: o.Models, sessions: o.Sessions,
		budgets: o.Budgets, rt: o.Runs, admit: o.Admit, payer: o.Payer, publishSession: o.Published, dir: o.StateDir,
		log: o.Log, now: o.Now, newID: o.NewID}
}

func (sp *Spawner) nowMs() int64 { return sp.now().UnixMilli() }

// traceParentOr is the trace context of ctx's span, else the one run
// was created under.
func traceParentOr(ctx context.Context, run domain.Run) string {
	if tp := tracing.Inject(ctx); tp != "" {
		return tp
	}
	return tracing.FromSpec(run.Spec)
}

// Children lists the sub-agent runs a session spawned, newest first.
func (sp *Spawner) Children(ctx context.Context, requesterKey string) ([]api.ChildRow, error) {
	rows, err := sp.store.ListSessions(ctx, domain.SessionQuery{SpawnedBy: requesterKey, IncludeArchived: true, Limit: 500})
	if err != nil {
		return nil, err
	}
	out := []api.ChildRow{}
	for _, s := range rows {
		runs, err := sp.store.ListRuns(ctx, domain.RunQuery{SessionKey: s.Key, Kinds: []domain.RunKind{domain.RunKindSubagent}, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		r := runs[0]
		c := api.ChildRow{RunID: r.ID, ChildSessionKey: s.Key, Label: s.Label, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, TotalTokens: s.TotalTokens, Error: r.Error}
		if r.EndedAt > 0 && r.StartedAt > 0 {
			c.RuntimeMs = r.EndedAt - r.StartedAt
		}
		if p, ok := sp.rt.SessionProgress(s.Key); ok {
			c.Progress = &p
		}
		out = append(out, c)
	}
	if len(rows) > 0 {
		keys := make([]string, len(out))
		for i, c := range out {
			keys[i] = c.ChildSessionKey
		}
		accts, err := sp.store.GetAccounts(ctx, keys)
		if err != nil {
			return nil, err
		}
		for i := range out {
			a := accts[out[i].ChildSessionKey]
			u := a.Usage
			out[i].Usage = &u
			if !a.Budget.IsZero() {
				b := a.Budget
				out[i].Budget = &b
			}
		}
	}
	return out, nil
}
