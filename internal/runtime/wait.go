package runtime

import (
	"context"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Wait returns the run once it has ended, or its current state when
// timeout passes first (the caller tells the two apart with
// domain.RunTerminal). A run that already ended returns at once. ctx ending
// returns ctx's error.
func (rt *Runtime) Wait(ctx context.Context, runID string, timeout time.Duration) (domain.Run, error) {
	w := &waiter{done: make(chan struct{})}
	rt.mu.Lock()
	set := rt.waiters[runID]
	if set == nil {
		set = map[*waiter]struct{}{}
		rt.waiters[runID] = set
	}
	set[w] = struct{}{}
	rt.mu.Unlock()
	defer func() {
		rt.mu.Lock()
		if set := rt.waiters[runID]; set != nil {
			delete(set, w)
			if len(set) == 0 {
				delete(rt.waiters, runID)
			}
		}
		rt.mu.Unlock()
	}()

	r, err := rt.opts.Store.GetRun(ctx, runID)
	if err != nil || domain.RunTerminal(r.Status) || timeout <= 0 {
		return r, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	// With replicas the end of a run executed elsewhere arrives as a
	// signal; should one be lost, the run is read again now and then.
	var recheck <-chan time.Time
	if rt.shared() {
		t := time.NewTicker(waitRecheck)
		defer t.Stop()
		recheck = t.C
	}
	for {
		select {
		case <-w.done:
		case <-timer.C:
		case <-ctx.Done():
			return r, ctx.Err()
		case <-recheck:
			cur, err := rt.opts.Store.GetRun(ctx, runID)
			if err != nil || !domain.RunTerminal(cur.Status) {
				continue
			}
			return cur, nil
		}
		if w.ended != nil {
			// The end this process committed: no need to read it back.
			return *w.ended, nil
		}
		return rt.opts.Store.GetRun(context.WithoutCancel(ctx), runID)
	}
}

// waitRecheck is how often a wait re-reads its run when replicas share
// the store (a safety net under the signals, which wake it at once).
const waitRecheck = time.Second

// wake answers every waiter of runID. ended, when set, is the run's end
// as committed here, handed to the waiters instead of a read of the store;
// nil (a signal from another replica) makes them read it.
func (rt *Runtime) wake(runID string, ended *domain.Run) {
	rt.mu.Lock()
	set := rt.waiters[runID]
	delete(rt.waiters, runID)
	rt.mu.Unlock()
	for w := range set {
		w.ended = ended
		close(w.done)
	}
}
