// Package runs runs agent turns. Each session has one lane: its runs are
// strictly serial in FIFO order, while runs of different sessions run in
// parallel, bounded by a global limit per lane kind. A run builds its
// context from the transcript, calls the model, executes tool calls, loops
// until a final answer, and records everything in the store as it happens.
//
// Runs are durable: their rows are the truth, waits read them, queued runs
// survive a restart and runs a dead process left running are marked aborted
// at start-up.
package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// Causes of a run context's end, told apart when the run is recorded.
var (
	errCancelled = errors.New("run cancelled")
	errTimeout   = errors.New("run timed out")
	errShutdown  = errors.New("switchboard is shutting down")
)

// AbortedError is the error text of runs cut short by a stop of the process.
const AbortedError = "aborted: switchboard stopped while the run was in flight"

// ModelResolver turns a model reference into a provider and a model id.
type ModelResolver interface {
	Resolve(ref string) (domain.Provider, string, error)
}

// Plan is what the engine decides for one run before it starts.
type Plan struct {
	System   string
	ModelRef string
	Thinking string
	Tools    []domain.ToolSpec
	// ToolContext is passed to every tool call of the run (RunID, ToolCallID
	// are filled in by the runtime).
	ToolContext domain.ToolCallContext
	// Provider, when set, answers the run's model calls instead of the
	// provider ModelRef names (a remote A2A agent's runs: the reply comes
	// from the remote, ModelRef only labels it).
	Provider domain.Provider
}

// request is the model call plan makes for run on history, streaming its
// deltas to onDelta; the ordinary loop and a quick turn both call it.
func (p Plan) request(run domain.Run, modelID string, history []domain.Message, onDelta domain.DeltaFunc) domain.ModelRequest {
	return domain.ModelRequest{
		Model:      modelID,
		System:     p.System,
		Messages:   history,
		Tools:      p.Tools,
		Thinking:   p.Thinking,
		AgentID:    run.AgentID,
		SessionKey: run.SessionKey,
		OnDelta:    onDelta,
	}
}

// Hooks are the engine's callbacks into a run's life.
type Hooks interface {
	// Prepare plans a run that is about to call its model.
	Prepare(ctx context.Context, run domain.Run, sess domain.Session) (Plan, error)
	// CallTool executes one tool call of a run.
	CallTool(ctx context.Context, tc domain.ToolCallContext, name string, args json.RawMessage) domain.ToolResult
	// Finished runs inside the transaction that records the end of run. It
	// may write follow-up state, and start follow-up runs with next (they
	// are created in the same transaction and scheduled after the commit).
	Finished(tx domain.Tx, run domain.Run, next func(domain.Run) (domain.Run, error)) error
	// AfterFinish runs after the end of run is committed.
	AfterFinish(run domain.Run)
	// PersistToolCall may rewrite tool-call arguments before they are stored
	// (attachment redaction).
	PersistToolCall(name string, args json.RawMessage) json.RawMessage
}

// Mirror receives the messages of a run when it ends (the JSONL mirror).
type Mirror interface {
	Append(agentID, sessionID string, msgs []domain.Message) error
}

// Spec is the part of a run's Spec the runtime reads.
type Spec struct {
	// UserMessage is appended to the transcript when the run starts.
	UserMessage *domain.Message `json:"userMessage,omitempty"`
	// Prelude is appended before UserMessage when the run starts (the
	// copied transcript of a forked sub-agent).
	Prelude []domain.Message `json:"prelude,omitempty"`
	// Steer lets a running run of the same session take this queued run's
	// message at its next model step (sessions_send mode "steer").
	Steer bool `json:"steer,omitempty"`
	// JoinedRunID is written by the runtime when a steer joined a running
	// run: the id of that run.
	JoinedRunID string `json:"joinedRunId,omitempty"`
	// Payer is the session of the budgeted run that caused this one (a
	// send's target run, a reply-back turn, an announce step): the run
	// draws on that session's spawn-chain budgets as well as its own.
	Payer string `json:"payer,omitempty"`
}

// Options configure a Runtime. Store, Models and Hooks are required.
type Options struct {
	Store  domain.Store
	Models ModelResolver
	Hooks  Hooks
	Mirror Mirror
	Emit   func(domain.Event)
	Now    func() time.Time
	NewID  func() string
	Logger *slog.Logger
	// Price, when set, is the cost in USD of a model step whose provider
	// reported none (models.providers.<name>.pricing); nil or 0: unpriced.
	Price func(modelRef string, u domain.Usage) float64
	// MaxSteps bounds model calls per run (default 25).
	MaxSteps int
	// Lanes bounds concurrent runs per lane kind (default 64 each).
	Lanes map[domain.Lane]int
	// ContextMessages bounds how many transcript messages a run sends to
	// the model (default 400, newest kept).
	ContextMessages int
	// ContextCacheBytes bounds the in-memory context cache by the
	// estimated memory of the messages it holds over all sessions
	// (default 256 MiB, or a quarter of GOMEMLIMIT when that is less;
	// negative disables it).
	ContextCacheBytes int
	// Hold records submitted runs without executing them: they stay queued
	// for the next runtime that starts without Hold (`--detach`).
	Hold bool
	// OwnWorkOnly carries out only this process's work: the runs submitted
	// through it, their follow-ups, and the runs queued ahead of them on
	// the same sessions (see own.go). Other queued runs stay queued for a
	// runtime without it (the gateway). In-process commands that write use
	// it; a process that serves does not.
	OwnWorkOnly bool
	// Cluster coordinates this runtime with the others on the same store
	// (replicas on PostgreSQL); nil means Local (alone on the store).
	Cluster replica.Cluster
	// QuickGrace is how long a quick turn waits for its model's final
	// answer before committing its claim (quick.go): 0 means the default,
	// a few milliseconds; negative turns quick turns off. Tests that count
	// quick turns on a loaded machine give it longer.
	QuickGrace time.Duration
	// Audit, when set, is called inside the transaction of every run
	// transition that wrote (from is the status before; domain.RunNew for
	// a run just created): the audit log's records of sends, spawns and
	// budget stops commit with them. Its error fails the transaction.
	Audit func(tx domain.Tx, from domain.RunStatus, next domain.Run) error
}

// Runtime schedules and executes runs. Start it with Start and stop it with
// Close; it owns every goroutine it starts.
//
// It is composed of services, each owning its state under its own lock
// (no lock is taken while another of them is held, except the scheduler's,
// under which the context cache and the mirror take theirs):
//   - the scheduler: the session lanes, their slots and drainers (lanes.go);
//   - the executor: the runs executing here, the steers they took in and
//     the lease each was claimed under (executing.go, execute.go);
//   - the wait board: the waiters of runs and the ends of runs that ended
//     here (wait.go);
//   - the canceller: the cancels cascading now (cancel.go);
//   - recovery: the crash rule at Start and on takeover, the mirror's
//     repair at Start (recover.go);
//   - the lease keeper: with replicas, the lease and the peers' signals
//     (lease.go, replicas.go);
//   - the transcript mirror writer (mirror.go).
type Runtime struct {
	opts    Options
	log     *slog.Logger
	cluster replica.Cluster

	sched    *scheduler
	exec     *executing
	waits    *waitBoard
	cancels  *canceller
	recovery *recovery
	leases   *leaseKeeper
	mirror   *mirrorWriter
	cache    *contextCache
	// progress holds the progress records of the runs executing here.
	progress *progressBoard
	// quickGrace is how long a quick turn waits for its model's final
	// answer before its claim is committed (quick.go); 0 turns quick
	// turns off.
	quickGrace time.Duration
	quick      quickCounters
}

type waiter struct {
	done chan struct{}
	// ended is the run's end, set before done is closed when this process
	// committed it (a copy each waiter may keep).
	ended *domain.Run
}

// New builds a runtime. Nothing runs until Start.
func New(opts Options) (*Runtime, error) {
	if opts.Store == nil || opts.Models == nil || opts.Hooks == nil {
		return nil, errors.New("runtime: Store, Models and Hooks are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = domain.NewTimeID
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Emit == nil {
		opts.Emit = func(domain.Event) {}
	}
	if opts.Cluster == nil {
		opts.Cluster = replica.Local{}
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 25
	}
	if opts.ContextMessages <= 0 {
		opts.ContextMessages = 400
	}
	var mw *mirrorWriter
	if opts.Mirror != nil {
		mw = newMirrorWriter(opts.Mirror, opts.Store, opts.Logger)
		// Started at once: a transcript write may come before Start
		// (Inject).
		mw.Start()
	}
	var cache *contextCache
	switch {
	case opts.ContextCacheBytes == 0:
		cache = newContextCache(processContextCacheBytes())
	case opts.ContextCacheBytes > 0:
		cache = newContextCache(opts.ContextCacheBytes)
	}
	rt := &Runtime{
		cache:    cache,
		progress: newProgressBoard(opts.Now, opts.Emit),
		mirror:   mw,
		opts:     opts,
		cluster:  opts.Cluster,
		log:      opts.Logger,
		sched:    newScheduler(schedulerConfig{Lanes: opts.Lanes, Hold: opts.Hold, OwnWorkOnly: opts.OwnWorkOnly}),
		exec:     newExecuting(),
		waits:    newWaitBoard(),

		quickGrace: quickGrace,
	}
	switch {
	case opts.QuickGrace < 0:
		rt.quickGrace = 0
	case opts.QuickGrace > 0:
		rt.quickGrace = opts.QuickGrace
	}
	rt.cancels = newCanceller(cancellerConfig{
		Store:   opts.Store,
		Cluster: opts.Cluster,
		Logger:  opts.Logger,
		Exec:    rt.exec,
		EndQueued: func(r domain.Run, out runOutcome) error {
			return rt.finishIf(r, domain.RunQueued, out)
		},
	})
	rt.recovery = newRecovery(recoveryConfig{
		Store:      opts.Store,
		Cluster:    opts.Cluster,
		Mirror:     opts.Mirror,
		Logger:     opts.Logger,
		Now:        rt.now,
		Finish:     func(r domain.Run, out runOutcome) error { return rt.finish(r, nil, out) },
		Transition: rt.transition,
		Requeued:   rt.signalQueued,
		Enqueue:    rt.enqueue,
		Pull:       rt.pull,
	})
	rt.leases = newLeaseKeeper(leaseKeeperConfig{
		Cluster:    opts.Cluster,
		Logger:     opts.Logger,
		OnLost:     rt.leaseLost,
		AfterRenew: rt.maintain,
		OnSignal:   rt.onSignal,
	})
	return rt, nil
}

func (rt *Runtime) now() int64 { return rt.opts.Now().UnixMilli() }

// Close stops scheduling, cancels in-flight runs (they are recorded as
// aborted) and waits for every goroutine, or until ctx is done. Queued runs
// stay queued in the store for the next start.
func (rt *Runtime) Close(ctx context.Context) error {
	rt.sched.Stop()
	rt.exec.Stop()
	done := make(chan struct{})
	go func() {
		rt.sched.Wait()
		rt.leases.Stop()
		rt.recovery.Stop()
		if rt.mirror != nil {
			rt.mirror.Stop()
		}
		// Every run here has ended or was queued again: peers need not
		// wait for the lease to expire.
		if err := rt.cluster.Leave(context.Background()); err != nil {
			rt.log.Warn("giving up the replica lease failed; it expires on its own", "err", err)
		}
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("runtime: close: %w", ctx.Err())
	}
}

// Start recovers what a previous process left behind (the recovery
// service) and then accepts work; with replicas the lease keeper starts.
func (rt *Runtime) Start(ctx context.Context) error {
	serving := !rt.opts.Hold && !rt.scoped()
	if err := rt.recovery.Start(ctx, serving); err != nil {
		return err
	}
	if serving {
		rt.leases.Start(rt.exec.ctx)
	}
	return nil
}

// Report returns what Start recovered.
func (rt *Runtime) Report() StartReport { return rt.recovery.Report() }

// QueueDepth returns how many runs wait in session lanes (for metrics).
func (rt *Runtime) QueueDepth() int { return rt.sched.queueDepth() }

// LaneIdle reports whether the lane of session key is free here: no run
// of it queued or executing, and its last executor gone. Only then is a
// chat turn submitted to it a quick turn (quick.go).
func (rt *Runtime) LaneIdle(key string) bool { return rt.sched.idle(key) }

// ActiveRuns returns how many runs are executing now.
func (rt *Runtime) ActiveRuns() int { return rt.exec.count() }
