package runs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
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

// Start recovers what a previous process left behind and then accepts
// work: runs it left running follow the crash rule (queued again once when
// none of their tool calls had executed, else recorded as aborted with
// their waiters and follow-ups resolved), the JSONL mirror is brought up to
// date from the store, and runs it left queued are scheduled again.
func (rt *Runtime) Start(ctx context.Context) error {
	st := rt.opts.Store
	var rep StartReport
	serving := !rt.opts.Hold && !rt.scoped()
	if serving && (!rt.shared() || mirrorSafeForReplicas(rt.opts.Mirror)) {
		// (Replicas share the mirror's directory, or have none: the
		// replica that runs a session's run appends to its file. They
		// repair it only when its writes are safe across processes:
		// flocked, skipping what a peer wrote; transcript/shared.go.)
		// First, while nothing runs: the mirror catches up with the store
		// (a run that ends during the repair would race it).
		var err error
		if rep.MirrorRepaired, err = rt.repairMirror(ctx); err != nil {
			return fmt.Errorf("runtime: repair transcript mirror: %w", err)
		}
		if rep.MirrorRepaired > 0 {
			rt.log.Warn("transcript mirror brought up to date from the store", "files", rep.MirrorRepaired)
		}
	}
	running, err := rt.leftRunning(ctx)
	if err != nil {
		return fmt.Errorf("runtime: recover: %w", err)
	}
	for _, r := range running {
		requeued, err := rt.recoverRun(ctx, r)
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
		rt.log.Warn("recovered runs left running by a stopped process", "requeued", rep.Requeued, "aborted", rep.Aborted)
	}
	if !serving {
		// A holding runtime leaves queued runs (and the mirror's repair)
		// to the next real start; a scoped one adopts only those queued
		// ahead of its own work.
		rt.setReport(rep)
		return nil
	}
	queued, err := st.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued}})
	if err != nil {
		return fmt.Errorf("runtime: recover: %w", err)
	}
	sort.SliceStable(queued, func(i, j int) bool { return queued[i].CreatedAt < queued[j].CreatedAt })
	for _, r := range queued {
		rt.enqueue(r)
	}
	rep.Resumed = len(queued)
	if len(queued) > 0 {
		rt.log.Info("resumed queued runs", "count", len(queued))
	}
	rt.setReport(rep)
	rt.leases.Start(rt.exec.ctx)
	return nil
}

// Report returns what Start recovered.
func (rt *Runtime) Report() StartReport {
	rt.recovery.mu.Lock()
	defer rt.recovery.mu.Unlock()
	return rt.recovery.report
}

func (rt *Runtime) setReport(rep StartReport) {
	rt.recovery.mu.Lock()
	rt.recovery.report = rep
	rt.recovery.mu.Unlock()
}

// recovery is what the crash rule found at Start; the crash rule itself
// runs at Start, and with replicas on every renewal of the lease for the
// runs of replicas whose lease expired (maintain).
type recovery struct {
	mu     sync.Mutex
	report StartReport
}

// recoverRun applies the crash rule to a run a stopped process left
// running; requeued reports which way it went.
//
// With replicas a run whose cancel was requested (written down by the
// replica that received it, perhaps while this run's replica was dead) is
// ended cancelled instead.
func (rt *Runtime) recoverRun(ctx context.Context, r domain.Run) (requeued bool, err error) {
	if rt.shared() {
		marked, err := rt.cluster.CancelsRequested(ctx, []string{r.ID})
		if err != nil {
			return false, err
		}
		if len(marked) > 0 {
			return false, rt.finish(r, nil, cancelledOutcome)
		}
	}
	started, err := rt.toolsStarted(ctx, r)
	if err != nil {
		return false, err
	}
	if !started && r.Attempt < MaxAttempts {
		err := rt.requeue(r)
		if err == nil {
			return true, nil
		}
		if errors.Is(err, errCancelRequested) {
			return false, rt.finish(r, nil, cancelledOutcome)
		}
		if !errors.Is(err, errNotRunning) {
			return false, err
		}
		return true, nil // someone else resolved it meanwhile
	}
	return false, rt.finish(r, nil, runOutcome{status: domain.RunError, err: AbortedError, aborted: true})
}

// cancelledOutcome ends a taken-over run whose cancel was requested.
var cancelledOutcome = runOutcome{status: domain.RunCancelled, err: "cancelled"}

// errCancelRequested: the run to re-queue has a cancel requested.
var errCancelRequested = errors.New("run has a cancel requested")

var errNotRunning = errors.New("run is not running")

// requeue moves a running run back to queued as its next attempt. Its
// inbound message stays where the first claim stored it.
func (rt *Runtime) requeue(r domain.Run) error {
	now := rt.now()
	err := rt.opts.Store.Update(context.Background(), func(tx domain.Tx) error {
		cur, err := tx.GetRun(r.ID)
		if err != nil {
			return err
		}
		if cur.Status != domain.RunRunning {
			return errNotRunning
		}
		// Checked under the run's lock, which a cancel request takes too.
		if marked, err := rt.cluster.CancelRequestedTx(tx, r.ID); err != nil {
			return err
		} else if marked {
			return errCancelRequested
		}
		if err := rt.cluster.ReleaseTx(tx, r.ID); err != nil {
			return err
		}
		_, _, err = rt.transition(tx, cur, domain.RunQueued, now)
		return err
	})
	if err == nil {
		rt.signalQueued(r) // any replica may take it now
	}
	return err
}

// runMessages returns the stored messages of run r (oldest first). A run's
// messages are at its transcript's tail while it runs (one lane per
// session), so only the tail is read.
func (rt *Runtime) runMessages(ctx context.Context, r domain.Run) ([]domain.Message, error) {
	if r.SessionID == "" {
		return nil, nil
	}
	msgs, err := rt.opts.Store.ReadMessages(ctx, r.SessionKey, domain.MessageQuery{SessionID: r.SessionID, Limit: runTailMessages})
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
func (rt *Runtime) toolsStarted(ctx context.Context, r domain.Run) (bool, error) {
	msgs, err := rt.runMessages(ctx, r)
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
func (rt *Runtime) repairMirror(ctx context.Context) (int, error) {
	if rt.opts.Mirror == nil {
		return 0, nil
	}
	rec, ok := rt.opts.Mirror.(Reconciler)
	if !ok {
		return 0, nil
	}
	repaired := 0
	q := domain.SessionQuery{IncludeArchived: true, Limit: repairPage}
	for {
		rows, err := rt.opts.Store.ListSessions(ctx, q)
		if err != nil {
			return repaired, err
		}
		for _, s := range rows {
			ok, err := rt.repairSession(ctx, rec, s)
			if err != nil {
				// One bad file must not keep the gateway down.
				rt.log.Warn("transcript mirror repair failed", "session", s.Key, "sessionId", s.SessionID, "err", err)
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
func (rt *Runtime) repairSession(ctx context.Context, rec Reconciler, s domain.Session) (bool, error) {
	if s.SessionID == "" || s.AgentID == "" {
		return false, nil
	}
	tail, err := rt.opts.Store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID, Limit: 1})
	if err != nil || len(tail) == 0 {
		return false, err
	}
	id, exists, err := rec.LastMessageID(s.AgentID, s.SessionID)
	if err == nil && exists && id == tail[0].ID {
		return false, nil
	}
	msgs, err := rt.opts.Store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID})
	if err != nil {
		return false, err
	}
	res, err := rec.Reconcile(s.AgentID, s.SessionID, msgs)
	if err != nil {
		return false, err
	}
	if res == transcript.SyncDiverged {
		rt.log.Warn("transcript mirror file ends with a message the store does not have; left as it is", "session", s.Key, "sessionId", s.SessionID)
	}
	return res.Repaired(), nil
}
