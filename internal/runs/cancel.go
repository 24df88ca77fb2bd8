package runs

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// canceller cancels runs and the runs they started. Its state is the
// cancels in progress here: per run, how many cancels cascade from it now
// (cancelTree); a queued child of such a run does not start (execute). It
// starts no goroutine.
type canceller struct {
	cfg cancellerConfig

	mu         sync.Mutex
	cancelling map[string]int
}

// cancellerConfig configures a canceller; every field is required.
type cancellerConfig struct {
	Store   domain.StoreReader
	Cluster replica.Cluster
	Logger  *slog.Logger
	// Exec reaches the runs executing here.
	Exec *executing
	// EndQueued records run r cancelled if it is still queued (else
	// errNotQueued).
	EndQueued func(r domain.Run, out runOutcome) error
}

func newCanceller(cfg cancellerConfig) *canceller {
	return &canceller{cfg: cfg, cancelling: map[string]int{}}
}

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
	return rt.cancels.Cancel(ctx, runID)
}

// Cancel is Runtime.Cancel.
func (c *canceller) Cancel(ctx context.Context, runID string) (domain.Run, error) {
	r, err := c.cfg.Store.GetRun(ctx, runID)
	if err != nil {
		return domain.Run{}, err
	}
	c.cancelTree(ctx, r, map[string]bool{})
	return c.cfg.Store.GetRun(ctx, runID)
}

func (c *canceller) cancelTree(ctx context.Context, r domain.Run, seen map[string]bool) {
	if seen[r.ID] {
		return
	}
	seen[r.ID] = true
	// While its children are looked up, a child that was queued behind it
	// on its lane and would start as it ends is cancelled instead
	// (execute): else it could run and end before the list below has it.
	c.enter(r.ID)
	defer c.leave(r.ID)
	c.cancelOne(ctx, r)
	// The children are listed after the parent's cancel: one it started
	// until then is in the list.
	children, err := c.cfg.Store.ListRuns(ctx, domain.RunQuery{ParentRunID: r.ID})
	if err != nil {
		c.cfg.Logger.Error("cancel: list child runs", "run", r.ID, "err", err)
	}
	for _, child := range children {
		c.cancelTree(ctx, child, seen)
	}
}

// cancelOne cancels r alone: a running one through its context (here or
// on the replica executing it), a queued one by recording it cancelled.
func (c *canceller) cancelOne(ctx context.Context, r domain.Run) {
	if domain.RunTerminal(r.Status) {
		return
	}
	if c.cfg.Exec.cancel(r.ID, errCancelled) {
		return
	}
	if c.cfg.Cluster.Shared() && r.Status == domain.RunRunning {
		// Executing on another replica: it cancels it there. The cancel is
		// written down first, as that replica may be dead: whoever takes
		// the run over ends it cancelled (recoverRun).
		status, err := c.cfg.Cluster.RequestCancel(ctx, r.ID)
		if err != nil {
			c.cfg.Logger.Error("cancel: record the cancel of a run on another replica", "run", r.ID, "err", err)
		}
		if status != domain.RunQueued {
			c.cfg.Cluster.Signal(replica.Signal{Kind: replica.SignalCancel, SessionKey: r.SessionKey, RunID: r.ID})
			return
		}
		// Re-queued (taken over) since it was read: cancel it queued.
	}
	// Not executing here: it is queued (or about to start). Record it as
	// cancelled if it still is queued; execute skips runs that are not.
	err := c.cfg.EndQueued(r, runOutcome{status: domain.RunCancelled, err: "cancelled before it started"})
	if err != nil && !errors.Is(err, errNotQueued) {
		c.cfg.Logger.Error("cancel queued run", "run", r.ID, "err", err)
	}
	if errors.Is(err, errNotQueued) {
		// It started between our read and the write: cancel it running.
		if !c.cfg.Exec.cancel(r.ID, errCancelled) && c.cfg.Cluster.Shared() {
			c.cfg.Cluster.Signal(replica.Signal{Kind: replica.SignalCancel, SessionKey: r.SessionKey, RunID: r.ID})
		}
	}
}
