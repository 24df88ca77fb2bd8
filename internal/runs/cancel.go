package runs

import (
	"context"
	"errors"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// canceller is the state of the cancels in progress here: per run, how
// many cancels cascade from it now (cancelTree). A queued child of such a
// run does not start (execute).
type canceller struct {
	mu         sync.Mutex
	cancelling map[string]int
}

func newCanceller() *canceller { return &canceller{cancelling: map[string]int{}} }

func (c *canceller) enter(id string) {
	c.mu.Lock()
	c.cancelling[id]++
	c.mu.Unlock()
}

func (c *canceller) leave(id string) {
	c.mu.Lock()
	if c.cancelling[id]--; c.cancelling[id] <= 0 {
		delete(c.cancelling, id)
	}
	c.mu.Unlock()
}

// parentCancelling reports whether r's parent run is being cancelled, with
// its children (cancelTree).
func (c *canceller) parentCancelling(r domain.Run) bool {
	if r.ParentRunID == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelling[r.ParentRunID] > 0
}

// Cancel cancels a run and, transitively, every run it started. A queued
// run is recorded as cancelled at once; a running one when it stops.
//
// A run is cancelled before the runs it started: a parent waiting on a
// child (sessions_send, a yield) wakes when the child ends, and were the
// child cancelled first, the parent could get one more model reply in and
// end ok before its own cancel landed — recording a reply after the cancel
// was asked for (docs/design.md#runs-lanes-and-waits). Its context is cancelled first, so the
// child's end finds it cancelled.
func (rt *Runtime) Cancel(ctx context.Context, runID string) (domain.Run, error) {
	r, err := rt.opts.Store.GetRun(ctx, runID)
	if err != nil {
		return domain.Run{}, err
	}
	rt.cancelTree(ctx, r, map[string]bool{})
	return rt.opts.Store.GetRun(ctx, runID)
}

func (rt *Runtime) cancelTree(ctx context.Context, r domain.Run, seen map[string]bool) {
	if seen[r.ID] {
		return
	}
	seen[r.ID] = true
	// While its children are looked up, a child that was queued behind it
	// on its lane and would start as it ends is cancelled instead
	// (execute): else it could run and end before the list below has it.
	rt.cancels.enter(r.ID)
	defer rt.cancels.leave(r.ID)
	rt.cancelOne(ctx, r)
	// The children are listed after the parent's cancel: one it started
	// until then is in the list.
	children, err := rt.opts.Store.ListRuns(ctx, domain.RunQuery{ParentRunID: r.ID})
	if err != nil {
		rt.log.Error("cancel: list child runs", "run", r.ID, "err", err)
	}
	for _, c := range children {
		rt.cancelTree(ctx, c, seen)
	}
}

// cancelOne cancels r alone: a running one through its context (here or
// on the replica executing it), a queued one by recording it cancelled.
func (rt *Runtime) cancelOne(ctx context.Context, r domain.Run) {
	if domain.RunTerminal(r.Status) {
		return
	}
	if rt.exec.cancel(r.ID, errCancelled) {
		return
	}
	if rt.shared() && r.Status == domain.RunRunning {
		// Executing on another replica: it cancels it there. The cancel is
		// written down first, as that replica may be dead: whoever takes
		// the run over ends it cancelled (recoverRun).
		status, err := rt.cluster.RequestCancel(ctx, r.ID)
		if err != nil {
			rt.log.Error("cancel: record the cancel of a run on another replica", "run", r.ID, "err", err)
		}
		if status != domain.RunQueued {
			rt.cluster.Signal(replica.Signal{Kind: replica.SignalCancel, SessionKey: r.SessionKey, RunID: r.ID})
			return
		}
		// Re-queued (taken over) since it was read: cancel it queued.
	}
	// Not executing here: it is queued (or about to start). Record it as
	// cancelled if it still is queued; execute skips runs that are not.
	err := rt.finishIf(r, domain.RunQueued, runOutcome{status: domain.RunCancelled, err: "cancelled before it started"})
	if err != nil && !errors.Is(err, errNotQueued) {
		rt.log.Error("cancel queued run", "run", r.ID, "err", err)
	}
	if errors.Is(err, errNotQueued) {
		// It started between our read and the write: cancel it running.
		if !rt.exec.cancel(r.ID, errCancelled) && rt.shared() {
			rt.cluster.Signal(replica.Signal{Kind: replica.SignalCancel, SessionKey: r.SessionKey, RunID: r.ID})
		}
	}
}
