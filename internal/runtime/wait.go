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
	select {
	case <-w.done:
	case <-timer.C:
	case <-ctx.Done():
		return r, ctx.Err()
	}
	return rt.opts.Store.GetRun(context.WithoutCancel(ctx), runID)
}

// wake answers every waiter of runID.
func (rt *Runtime) wake(runID string) {
	rt.mu.Lock()
	set := rt.waiters[runID]
	delete(rt.waiters, runID)
	rt.mu.Unlock()
	for w := range set {
		close(w.done)
	}
}
