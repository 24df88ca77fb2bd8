package runs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// MaxAttempts is how many times a run is started at most: a run a stopped
// process left running before any of its tool calls executed is queued
// again once (attempt 2); a second death aborts it.
const MaxAttempts = 2

// runTailMessages bounds how far back the transcript is read to find a
// run's own messages (a run makes at most maxSteps model calls, each with a
// few tool results, so its messages are far fewer than this).
const runTailMessages = 1000

// StartReport says what Start recovered from the previous process.
type StartReport struct {
	// Requeued counts runs left running that were queued again (attempt 2).
	Requeued int
	// Aborted counts runs left running that were recorded as aborted
	// (a tool call had executed, or it was already on its last attempt).
	Aborted int
	// Resumed counts queued runs scheduled again.
	Resumed int
	// MirrorRepaired counts JSONL mirror files created or completed from
	// the store.
	MirrorRepaired int
}

// Reconciler is the part of the mirror that catches up with the store
// (transcript.Mirror implements it). A mirror without it is not repaired.
type Reconciler interface {
	LastMessageID(agentID, sessionID string) (id string, exists bool, err error)
	Reconcile(agentID, sessionID string, msgs []domain.Message) (transcript.SyncResult, error)
}

// recovery is the crash rule's service. At Start it resolves what a
// stopped process left behind — the runs it left running (queued again
// once when none of their tool calls had executed, else ended aborted),
// the JSONL mirror brought up to date from the store, the runs it left
// queued scheduled again — and, with replicas, it takes over the runs of
// a replica whose lease expired on each renewal of this replica's lease
// (takeOver, called by the lease keeper on its renewing goroutine, so the
// crash rule has run before the renewal's maintenance claims anything).
// It starts no goroutine of its own; Stop makes a late tick do nothing.
type recovery struct {
	cfg recoveryConfig

	mu      sync.Mutex
	report  StartReport
	stopped bool
}

// recoveryConfig configures recovery. Store, Cluster, Finish, Requeued,
// Enqueue and Pull are required.
type recoveryConfig struct {
	Store   domain.Store
	Cluster replica.Cluster
	// Mirror is repaired at Start when it is a Reconciler (nil: none).
	Mirror Mirror
	Logger *slog.Logger
	Now    func() int64
	// Finish records the end of a run the crash rule does not queue
	// again (the one end-of-run transaction).
	Finish func(r domain.Run, out runOutcome) error
	// Transition is the runtime's one status change (transition.go).
	Transition func(tx domain.Tx, cur domain.Run, to domain.RunStatus, now int64) (domain.Run, bool, error)
	// Requeued tells the other replicas that a run waits for a claim again.
	Requeued func(r domain.Run)
	// Enqueue schedules a queued run here; Pull looks for the queued runs
	// of a session (every session: "") that nobody claimed.
	Enqueue func(r domain.Run)
	Pull    func(ctx context.Context, key string)
}

func newRecovery(cfg recoveryConfig) *recovery {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &recovery{cfg: cfg}
}

func (rc *recovery) shared() bool { return rc.cfg.Cluster.Shared() }

// Start recovers what a previous process left behind. serving is false
// for a runtime that holds its work or carries out only its own: it
// applies the crash rule but leaves the queued runs (and the mirror's
// repair) to a runtime that serves.
func (rc *recovery) Start(ctx context.Context, serving bool) error {
	st := rc.cfg.Store
	var rep StartReport
	if serving && (!rc.shared() || mirrorSafeForReplicas(rc.cfg.Mirror)) {
		// (Replicas share the mirror's directory, or have none: the
		// replica that runs a session's run appends to its file. They
		// repair it only when its writes are safe across processes:
		// flocked, skipping what a peer wrote; transcript/shared.go.)
		// First, while nothing runs: the mirror catches up with the store
		// (a run that ends during the repair would race it).
		var err error
		if rep.MirrorRepaired, err = rc.repairMirror(ctx); err != nil {
			return fmt.Errorf("runtime: repair transcript mirror: %w", err)
		}
		if rep.MirrorRepaired > 0 {
			rc.cfg.Logger.Warn("transcript mirror brought up to date from the store", "files", rep.MirrorRepaired)
		}
	}
	running, err := rc.leftRunning(ctx)
	if err != nil {
		return fmt.Errorf("runtime: recover: %w", err)
	}
	for _, r := range running {
		requeued, err := rc.recoverRun(ctx, r)
		if err != nil {
			return fmt.Errorf("runtime: recover run %s: %w", r.ID, err)
		}
		if requeued {
			rep.Requeued++
		} else {
			rep.Aborted++
		}
	}
	if len(running) > 0 {
		rc.cfg.Logger.Warn("recovered runs left running by a stopped process", "requeued", rep.Requeued, "aborted", rep.Aborted)
	}
	if !serving {
		rc.setReport(rep)
		return nil
	}
	queued, err := st.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued}})
	if err != nil {
		return fmt.Errorf("runtime: recover: %w", err)
	}
	sort.SliceStable(queued, func(i, j int) bool { return queued[i].CreatedAt < queued[j].CreatedAt })
	for _, r := range queued {
		rc.cfg.Enqueue(r)
	}
	rep.Resumed = len(queued)
	if len(queued) > 0 {
		rc.cfg.Logger.Info("resumed queued runs", "count", len(queued))
	}
	rc.setReport(rep)
	return nil
}

// Stop ends recovery: a takeover tick after it does nothing.
func (rc *recovery) Stop() {
	rc.mu.Lock()
	rc.stopped = true
	rc.mu.Unlock()
}

// Report returns what Start recovered.
func (rc *recovery) Report() StartReport {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.report
}

func (rc *recovery) setReport(rep StartReport) {
	rc.mu.Lock()
	rc.report = rep
	rc.mu.Unlock()
}

// leftRunning returns the runs a stopped process left running, which the
// crash rule resolves at Start: every running run when the runtime is
// alone on its store; with replicas only those whose replica's lease
// expired (the others are running somewhere now).
func (rc *recovery) leftRunning(ctx context.Context) ([]domain.Run, error) {
	if rc.shared() {
		return rc.cfg.Cluster.TakeOver(ctx)
	}
	return rc.cfg.Store.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunRunning}})
}

// takeOver applies the crash rule to the runs of replicas whose lease
// expired, and schedules the re-queued ones here.
func (rc *recovery) takeOver(ctx context.Context) {
	rc.mu.Lock()
	stopped := rc.stopped
	rc.mu.Unlock()
	if stopped {
		return
	}
	runs, err := rc.cfg.Cluster.TakeOver(ctx)
	if err != nil && ctx.Err() == nil {
		rc.cfg.Logger.Warn("taking over expired replicas' runs failed", "err", err)
	}
	requeued, aborted := 0, 0
	for _, r := range runs {
		again, err := rc.recoverRun(ctx, r)
		if err != nil {
			rc.cfg.Logger.Error("crash rule on a taken-over run failed", "run", r.ID, "err", err)
			continue
		}
		if again {
			requeued++
		} else {
			aborted++
		}
		rc.cfg.Pull(ctx, r.SessionKey)
	}
	if len(runs) > 0 {
		rc.cfg.Logger.Warn("took over runs of a replica whose lease expired", "requeued", requeued, "aborted", aborted)
	}
}

// recoverRun applies the crash rule to a run a stopped process left
// running; requeued reports which way it went.
//
// With replicas a run whose cancel was requested (written down by the
// replica that received it, perhaps while this run's replica was dead) is
// ended cancelled instead.
func (rc *recovery) recoverRun(ctx context.Context, r domain.Run) (requeued bool, err error) {
	if rc.shared() {
		marked, err := rc.cfg.Cluster.CancelsRequested(ctx, []string{r.ID})
		if err != nil {
			return false, err
		}
		if len(marked) > 0 {
			return false, rc.cfg.Finish(r, cancelledOutcome)
		}
	}
	started, err := rc.toolsStarted(ctx, r)
	if err != nil {
		return false, err
	}
	if !started && r.Attempt < MaxAttempts {
		err := rc.requeue(r)
		if err == nil {
			return true, nil
		}
		if errors.Is(err, errCancelRequested) {
			return false, rc.cfg.Finish(r, cancelledOutcome)
		}
		if !errors.Is(err, errNotRunning) {
			return false, err
		}
		return true, nil // someone else resolved it meanwhile
	}
	return false, rc.cfg.Finish(r, runOutcome{status: domain.RunError, err: AbortedError, aborted: true})
}

// cancelledOutcome ends a taken-over run whose cancel was requested.
var cancelledOutcome = runOutcome{status: domain.RunCancelled, err: "cancelled"}

// errCancelRequested: the run to re-queue has a cancel requested.
var errCancelRequested = errors.New("run has a cancel requested")

var errNotRunning = errors.New("run is not running")

// requeue moves a running run back to queued as its next attempt. Its
// inbound message stays where the first claim stored it.
func (rc *recovery) requeue(r domain.Run) error {
	now := rc.cfg.Now()
	err := rc.cfg.Store.Update(context.Background(), func(tx domain.Tx) error {
		cur, err := tx.GetRun(r.ID)
		if err != nil {
			return err
		}
		if cur.Status != domain.RunRunning {
			return errNotRunning
		}
		// Checked under the run's lock, which a cancel request takes too.
		if marked, err := rc.cfg.Cluster.CancelRequestedTx(tx, r.ID); err != nil {
			return err
		} else if marked {
			return errCancelRequested
		}
		if err := rc.cfg.Cluster.ReleaseTx(tx, r.ID); err != nil {
			return err
		}
		_, _, err = rc.cfg.Transition(tx, cur, domain.RunQueued, now)
		return err
	})
	if err == nil {
		rc.cfg.Requeued(r) // any replica may take it now
	}
	return err
}

// runMessages returns the stored messages of run r (oldest first). A run's
// messages are at its transcript's tail while it runs (one lane per
// session), so only the tail is read.
func (rc *recovery) runMessages(ctx context.Context, r domain.Run) ([]domain.Message, error) {
	if r.SessionID == "" {
		return nil, nil
	}
	msgs, err := rc.cfg.Store.ReadMessages(ctx, r.SessionKey, domain.MessageQuery{SessionID: r.SessionID, Limit: runTailMessages})
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var own []domain.Message
	for _, m := range msgs {
		if m.RunID == r.ID {
			own = append(own, m)
		}
	}
	return own, nil
}

// toolsStarted reports whether any tool call of r may have executed. The
// assistant message that asks for tool calls is committed before the first
// of them runs, so its presence is the durable marker (a conservative
// one: the process may have died before the call began).
func (rc *recovery) toolsStarted(ctx context.Context, r domain.Run) (bool, error) {
	msgs, err := rc.runMessages(ctx, r)
	if err != nil {
		return false, err
	}
	for _, m := range msgs {
		if m.Role == domain.RoleToolResult || (m.Role == domain.RoleAssistant && len(m.Content.ToolCalls()) > 0) {
			return true, nil
		}
	}
	return false, nil
}

// mirrorSafeForReplicas reports whether mirror m may be repaired while
// other replicas write the same directory.
func mirrorSafeForReplicas(m any) bool {
	s, ok := m.(interface{ SafeForReplicas() bool })
	return ok && s.SafeForReplicas()
}

// repairPage is how many session rows the mirror repair reads at a time.
const repairPage = 500

// repairMirror brings every session's JSONL file up to date with the
// store and returns how many files it created or completed. A file whose
// last message is the store's last is taken as complete (the mirror is
// append-only), so an intact mirror costs one tail read per session.
func (rc *recovery) repairMirror(ctx context.Context) (int, error) {
	if rc.cfg.Mirror == nil {
		return 0, nil
	}
	rec, ok := rc.cfg.Mirror.(Reconciler)
	if !ok {
		return 0, nil
	}
	repaired := 0
	q := domain.SessionQuery{IncludeArchived: true, Limit: repairPage}
	for {
		rows, err := rc.cfg.Store.ListSessions(ctx, q)
		if err != nil {
			return repaired, err
		}
		for _, s := range rows {
			ok, err := rc.repairSession(ctx, rec, s)
			if err != nil {
				// One bad file must not keep the gateway down.
				rc.cfg.Logger.Warn("transcript mirror repair failed", "session", s.Key, "sessionId", s.SessionID, "err", err)
				continue
			}
			if ok {
				repaired++
			}
		}
		if len(rows) < repairPage {
			return repaired, nil
		}
		last := rows[len(rows)-1]
		q.AfterUpdatedAt, q.AfterKey = last.UpdatedAt, last.Key
	}
}

// repairSession reconciles one session's file; it reports a repair.
func (rc *recovery) repairSession(ctx context.Context, rec Reconciler, s domain.Session) (bool, error) {
	if s.SessionID == "" || s.AgentID == "" {
		return false, nil
	}
	tail, err := rc.cfg.Store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID, Limit: 1})
	if err != nil || len(tail) == 0 {
		return false, err
	}
	id, exists, err := rec.LastMessageID(s.AgentID, s.SessionID)
	if err == nil && exists && id == tail[0].ID {
		return false, nil
	}
	msgs, err := rc.cfg.Store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID})
	if err != nil {
		return false, err
	}
	res, err := rec.Reconcile(s.AgentID, s.SessionID, msgs)
	if err != nil {
		return false, err
	}
	if res == transcript.SyncDiverged {
		rc.cfg.Logger.Warn("transcript mirror file ends with a message the store does not have; left as it is", "session", s.Key, "sessionId", s.SessionID)
	}
	return res.Repaired(), nil
}
