package runs

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// Submit creates a run and schedules it. prepare, when set, runs first in
// the same transaction (to create the session row, say). A repeated
// idempotency key returns the first run and starts nothing.
func (rt *Runtime) Submit(ctx context.Context, r domain.Run, prepare func(tx domain.Tx) error) (domain.Run, bool, error) {
	return rt.submit(ctx, r, nil, nil, prepare)
}

// SubmitSpec is Submit for a caller that has the runtime's part of r.Spec
// at hand (it built r.Spec from it): spec must be what r.Spec decodes to.
// A run that starts at once then skips decoding it again (the engine's
// chat does, on every turn). sess, when set, is r's session row as the caller
// read it from the store just before; a quick turn (quick.go) starts from
// it instead of reading it again, and checks at its commit that it has not
// changed since.
func (rt *Runtime) SubmitSpec(ctx context.Context, r domain.Run, spec Spec, sess *domain.Session, prepare func(tx domain.Tx) error) (domain.Run, bool, error) {
	return rt.submit(ctx, r, &spec, sess, prepare)
}

func (rt *Runtime) submit(ctx context.Context, r domain.Run, spec *Spec, sess *domain.Session, prepare func(tx domain.Tx) error) (domain.Run, bool, error) {
	rt.mu.Lock()
	closing := rt.closing
	rt.mu.Unlock()
	if closing {
		return domain.Run{}, false, domain.Errorf(domain.CodeUnavailable, "switchboard is shutting down")
	}
	r = rt.fill(r)
	own := rt.claimNew(ctx, r)
	if own {
		// A scoped runtime first takes the runs queued ahead on the lane.
		if err := rt.adoptAhead(ctx, r.SessionKey, r.ID); err != nil {
			rt.disown(r.ID)
			return domain.Run{}, false, err
		}
	}
	// When the session's lane is idle here and a slot is free, the run is
	// claimed at submission (one commit fewer, and it starts at once);
	// else it is created queued for its lane's drainer to claim.
	var stored domain.Run
	var created, started bool
	var err error
	var res *reservation
	if own {
		res = rt.reserveIdleLane(r)
	}
	if res != nil {
		stored, created, started, err = rt.submitClaimed(ctx, r, spec, sess, prepare, res)
	} else {
		stored, created, err = rt.createQueued(ctx, r, prepare)
	}
	if (err != nil || !created) && !started {
		rt.disown(r.ID)
	}
	if err != nil {
		return domain.Run{}, false, err
	}
	switch {
	case created && !started && own:
		rt.enqueue(stored)
		rt.signalQueued(stored)
	case !created && own:
		if err := rt.adoptExisting(ctx, stored); err != nil {
			return domain.Run{}, false, err
		}
	}
	return stored, created, nil
}

// reservation is an idle lane taken for a run claimed at submission.
type reservation struct {
	key  string
	lane *lane
	sem  chan struct{}
}

// reserveIdleLane takes the lane of r's session and a slot of its lane
// kind when both are free, counting the goroutine that will own the lane.
func (rt *Runtime) reserveIdleLane(r domain.Run) *reservation {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closing || rt.opts.Hold || rt.lanes[r.SessionKey] != nil {
		return nil
	}
	sem := rt.semFor(r.Lane)
	select {
	case sem <- struct{}{}:
	default:
		return nil
	}
	l := &lane{running: true}
	rt.lanes[r.SessionKey] = l
	rt.wg.Add(1)
	return &reservation{key: r.SessionKey, lane: l, sem: sem}
}

// releaseLane gives back a reservation that was not used: its slot, and
// its lane to a drainer if runs were queued behind it meanwhile.
func (rt *Runtime) releaseLane(res *reservation) {
	<-res.sem
	go func() {
		defer rt.wg.Done()
		rt.drainLane(res.key, res.lane)
	}()
}

func (rt *Runtime) semFor(laneKind domain.Lane) chan struct{} {
	if sem := rt.sems[laneKind]; sem != nil {
		return sem
	}
	return rt.sems[domain.LaneMain]
}

// fill sets the defaults of a new run.
func (rt *Runtime) fill(r domain.Run) domain.Run {
	if r.ID == "" {
		r.ID = rt.opts.NewID()
	}
	r = unstored(r)
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	if r.CreatedAt == 0 {
		r.CreatedAt = rt.now()
	}
	r.UpdatedAt = r.CreatedAt
	if r.Lane == "" {
		r.Lane = domain.LaneMain
	}
	return r
}

// enqueue appends r to its session's lane and starts the lane's drainer.
// A scoped runtime leaves a run that is not its work queued in the store.
func (rt *Runtime) enqueue(r domain.Run) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.scoped() && !rt.owned[r.ID] {
		return
	}
	rt.enqueueLocked(r)
}

// enqueueLocked is enqueue for a caller holding rt.mu.
func (rt *Runtime) enqueueLocked(r domain.Run) {
	if rt.closing || rt.opts.Hold {
		return
	}
	l := rt.lanes[r.SessionKey]
	if l == nil {
		l = &lane{}
		rt.lanes[r.SessionKey] = l
	}
	l.queue = append(l.queue, r)
	if isSteer(r) {
		l.steers++
	}
	if !l.running {
		l.running = true
		rt.wg.Add(1)
		go rt.drain(r.SessionKey, l)
	}
}

// drain executes a session's queued runs one at a time until the lane is
// empty. It owns the lane while it runs.
func (rt *Runtime) drain(key string, l *lane) {
	defer rt.wg.Done()
	rt.drainLane(key, l)
}

// drainLane is drain's loop, for a caller that already counted itself in
// rt.wg.
func (rt *Runtime) drainLane(key string, l *lane) {
	for {
		rt.mu.Lock()
		if len(l.queue) == 0 || rt.closing {
			l.running = false
			delete(rt.lanes, key)
			rt.mu.Unlock()
			return
		}
		r := l.queue[0]
		l.queue = l.queue[1:]
		rt.mu.Unlock()

		sem := rt.semFor(r.Lane)
		select {
		case sem <- struct{}{}:
		case <-rt.ctx.Done():
			continue // closing: the loop exits, the run stays queued
		}
		rt.execute(r)
		<-sem
	}
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
	rt.mu.Lock()
	rt.cancelling[r.ID]++
	rt.mu.Unlock()
	defer func() {
		rt.mu.Lock()
		if rt.cancelling[r.ID]--; rt.cancelling[r.ID] <= 0 {
			delete(rt.cancelling, r.ID)
		}
		rt.mu.Unlock()
	}()
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
	rt.mu.Lock()
	cancel := rt.active[r.ID]
	rt.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
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
		rt.mu.Lock()
		cancel := rt.active[r.ID]
		rt.mu.Unlock()
		if cancel != nil {
			cancel(errCancelled)
		} else if rt.shared() {
			rt.cluster.Signal(replica.Signal{Kind: replica.SignalCancel, SessionKey: r.SessionKey, RunID: r.ID})
		}
	}
}
