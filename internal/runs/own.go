package runs

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A runtime with Options.OwnWorkOnly carries out only the work of its
// process (an in-process command that writes), and leaves the rest queued
// for a process that serves (the gateway). Its work is:
//   - the runs submitted through it with no link to another run (the
//     command's own chat, send or spawn);
//   - the follow-ups of its work: runs created when one of its runs ends
//     (reply-back turns, announce steps), runs submitted with ParentRunID
//     naming one of its runs (sessions_send, a spawned child) and runs
//     submitted with a context from FollowUpOf naming one (a child's
//     announce turn in its requester's session);
//   - the runs queued ahead of its work on the same session: a lane is
//     strictly FIFO, so they run first, and become its work too (their
//     follow-ups run here as well).
//
// Everything else — runs queued by `--detach` on other sessions, follow-ups
// of runs it did not carry out — stays queued in the store.

// followUpKey marks a context as acting for a run (see FollowUpOf).
type followUpKey struct{}

// FollowUpOf returns ctx marked as acting for run runID: a run submitted
// with it is a follow-up of runID (its work, for a runtime with
// OwnWorkOnly), as a run with ParentRunID runID is. The runtime marks the
// context of every tool call this way; code that starts a follow-up
// outside a run (an announce delivered by the outbox) marks it itself.
func FollowUpOf(ctx context.Context, runID string) context.Context {
	return context.WithValue(ctx, followUpKey{}, runID)
}

// followUpOf is the run ctx acts for ("" when none).
func followUpOf(ctx context.Context) string {
	id, _ := ctx.Value(followUpKey{}).(string)
	return id
}

// scoped reports whether the runtime carries out only its own work.
func (rt *Runtime) scoped() bool { return rt.sched.owned != nil }

// ownNew decides whether r, about to be created, is this runtime's work,
// and if so records it as such. An unscoped runtime owns everything.
func (rt *Runtime) ownNew(ctx context.Context, r domain.Run) bool {
	if !rt.scoped() {
		return true
	}
	link := r.ParentRunID
	if link == "" {
		link = followUpOf(ctx)
	}
	rt.sched.mu.Lock()
	defer rt.sched.mu.Unlock()
	if link != "" && !rt.sched.owned[link] {
		return false
	}
	rt.sched.owned[r.ID] = true
	return true
}

// owns reports whether run id is this runtime's work.
func (rt *Runtime) owns(id string) bool {
	if !rt.scoped() {
		return true
	}
	rt.sched.mu.Lock()
	defer rt.sched.mu.Unlock()
	return rt.sched.owned[id]
}

// disown forgets a run recorded by ownNew that was not created (the
// idempotency key named an existing run).
func (rt *Runtime) disown(id string) {
	if !rt.scoped() {
		return
	}
	rt.sched.mu.Lock()
	delete(rt.sched.owned, id)
	rt.sched.mu.Unlock()
}

// adoptAhead makes the queued runs of session key that come before run id
// (all of them when id is not stored yet) this runtime's work, and queues
// them in the session's lane, oldest first. Only a scoped runtime adopts:
// an unscoped one scheduled every queued run at Start.
func (rt *Runtime) adoptAhead(ctx context.Context, key, id string) error {
	if !rt.scoped() {
		return nil
	}
	queued, err := rt.opts.Store.ListRuns(ctx, domain.RunQuery{SessionKey: key, Statuses: []domain.RunStatus{domain.RunQueued}})
	if err != nil {
		return fmt.Errorf("runtime: runs queued on %s: %w", key, err)
	}
	slices.Reverse(queued) // the store lists the newest first
	rt.sched.mu.Lock()
	defer rt.sched.mu.Unlock()
	for _, r := range queued {
		if r.ID == id {
			break
		}
		if rt.sched.owned[r.ID] {
			continue // already scheduled here
		}
		rt.sched.owned[r.ID] = true
		rt.enqueueLocked(r)
	}
	return nil
}

// adoptExisting schedules a run that a repeated idempotency key named, when
// it is still queued and not this runtime's work yet (a `--detach` run
// submitted again without it): the runs ahead of it first, then it.
func (rt *Runtime) adoptExisting(ctx context.Context, r domain.Run) error {
	if !rt.scoped() || r.Status != domain.RunQueued || rt.owns(r.ID) {
		return nil
	}
	if err := rt.adoptAhead(ctx, r.SessionKey, r.ID); err != nil {
		return err
	}
	rt.sched.mu.Lock()
	defer rt.sched.mu.Unlock()
	if !rt.sched.owned[r.ID] {
		rt.sched.owned[r.ID] = true
		rt.enqueueLocked(r)
	}
	return nil
}

// Busy reports whether the runtime has work to do now. An unscoped runtime
// counts every queued or running run in the store, then its own lanes; a
// scoped one only its own work: runs in its lanes (queued, or popped and
// about to start) and runs executing. A run's follow-ups are scheduled
// before it leaves the active set, so a quiet Busy is a true idle.
func (rt *Runtime) Busy(ctx context.Context) (bool, error) {
	if !rt.scoped() {
		live, err := rt.opts.Store.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}, Limit: 1})
		if err != nil {
			return false, err
		}
		if len(live) > 0 {
			return true, nil
		}
		return rt.ActiveRuns() > 0 || rt.QueueDepth() > 0, nil
	}
	return rt.exec.count() > 0 || rt.sched.busy(), nil
}

// ownFollowUp records run id, created as a follow-up of this runtime's
// work, as its work.
func (rt *Runtime) ownFollowUp(id string) {
	if !rt.scoped() {
		return
	}
	rt.sched.mu.Lock()
	rt.sched.owned[id] = true
	rt.sched.mu.Unlock()
}
