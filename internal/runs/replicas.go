package runs

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// What a runtime does when it shares its store with other replicas (see
// Cluster). Nothing here runs for a Local cluster.

// errLeaseLost is the cause of runs cancelled because this replica's
// lease was taken over: another replica owns them now.
var errLeaseLost = errors.New("replica lease lost")

// shared reports whether other replicas may share the store.
func (rt *Runtime) shared() bool { return rt.cluster.Shared() }

// maintain is what rides on each renewal of the lease: the crash rule on
// the runs of replicas whose lease expired, the cancels peers wrote down,
// and the queued runs nobody claimed.
func (rt *Runtime) maintain(ctx context.Context) {
	rt.recovery.takeOver(ctx)
	rt.honourCancels(ctx)
	rt.pull(ctx, "")
}

// leaseLost cancels the runs claimed under the lease that was taken over
// (another replica resolves them) and starts a new generation for the
// claims under the next one.
func (rt *Runtime) leaseLost() {
	rt.log.Error("replica lease was taken over; cancelling the runs it held (another replica resolves them)")
	rt.exec.loseLease(errLeaseLost)
}

// honourCancels cancels the runs executing here whose cancel another
// replica wrote down (its signal may have been lost).
func (rt *Runtime) honourCancels(ctx context.Context) {
	marked, err := rt.cluster.CancelsRequested(ctx, rt.exec.ids())
	if err != nil {
		if ctx.Err() == nil {
			rt.log.Warn("looking for requested cancels failed", "err", err)
		}
		return
	}
	rt.exec.cancelAll(marked, errCancelled)
}

// underLease notes that run id was claimed under the current lease.
func (rt *Runtime) underLease(id string) {
	if rt.shared() {
		rt.exec.underLease(id)
	}
}

// pullBatch bounds how many unclaimed runs one look brings into the lanes.
const pullBatch = 64

// pull brings the runs that could be claimed now (of session key, or of
// any session when key is "") into this runtime's lanes, unless they are
// there already. A claim decides who runs them.
func (rt *Runtime) pull(ctx context.Context, key string) {
	if !rt.shared() || rt.opts.Hold || rt.scoped() {
		return
	}
	limit := pullBatch
	if key != "" {
		limit = 1
	}
	runs, err := rt.cluster.Next(ctx, key, limit)
	if err != nil {
		if ctx.Err() == nil {
			rt.log.Warn("looking for unclaimed runs failed", "session", key, "err", err)
		}
		return
	}
	for _, r := range runs {
		if rt.exec.has(r.ID) {
			continue // executing here
		}
		rt.sched.mu.Lock()
		if !rt.queuedLocked(r) {
			rt.enqueueLocked(r)
		}
		rt.sched.mu.Unlock()
	}
}

// queuedLocked reports whether run r is in a lane of this runtime; the
// caller holds rt.sched.mu.
func (rt *Runtime) queuedLocked(r domain.Run) bool {
	if l := rt.sched.lanes[r.SessionKey]; l != nil {
		for _, q := range l.queue {
			if q.ID == r.ID {
				return true
			}
		}
	}
	return false
}

// laneBusy handles a claim refused because the session's lane is not
// free: the run stays queued in the store for the replica that holds the
// lane (it pulls the next run when its own ends), and a run queued ahead
// is brought here to go first.
func (rt *Runtime) laneBusy(busy *replica.LaneBusyError) {
	if busy.Ahead == "" {
		return
	}
	rt.pull(rt.exec.ctx, busy.SessionKey)
}

// signalQueued tells the other replicas that run r waits for a claim.
func (rt *Runtime) signalQueued(r domain.Run) {
	if rt.shared() {
		rt.cluster.Signal(replica.Signal{Kind: replica.SignalQueued, SessionKey: r.SessionKey, RunID: r.ID})
	}
}

// onSignal handles one peer's signal.
func (rt *Runtime) onSignal(ctx context.Context, s replica.Signal) {
	switch s.Kind {
	case replica.SignalQueued:
		rt.pull(ctx, s.SessionKey)
		return
	case replica.SignalCancel:
		rt.exec.cancel(s.RunID, errCancelled)
		return
	case domain.EventRunEnd:
		rt.wake(s.RunID, nil)
	}
	ev, ok, err := rt.ResolveSignal(ctx, s)
	if err != nil {
		if ctx.Err() == nil {
			rt.log.Warn("reading a peer's event from the store failed", "kind", s.Kind, "session", s.SessionKey, "err", err)
		}
		return
	}
	if ok {
		rt.opts.Emit(ev)
	}
}

// SignalOf is the signal that tells the other replicas about event ev,
// by ids; ok is false for events that do not cross replicas.
func SignalOf(ev domain.Event) (replica.Signal, bool) {
	s := replica.Signal{Kind: ev.Kind, SessionKey: ev.SessionKey, Reason: ev.Reason, TS: ev.TS}
	switch ev.Kind {
	case domain.EventRunStart, domain.EventRunEnd:
		if ev.Run == nil {
			return replica.Signal{}, false
		}
		s.RunID, s.SessionKey = ev.Run.ID, ev.Run.SessionKey
	case domain.EventMessage:
		if ev.Message == nil || ev.Message.Seq == 0 {
			return replica.Signal{}, false
		}
		s.RunID, s.SessionID, s.Seq = ev.Message.RunID, ev.Message.SessionID, ev.Message.Seq
	case domain.EventSession:
	default:
		return replica.Signal{}, false
	}
	return s, true
}

// ResolveSignal rebuilds the event a peer's signal names from the store
// (ok false when what it names is gone). The event carries the peer's
// replica name, so it is not told back to the peers.
func (rt *Runtime) ResolveSignal(ctx context.Context, s replica.Signal) (domain.Event, bool, error) {
	ev := domain.Event{Kind: s.Kind, SessionKey: s.SessionKey, Reason: s.Reason, TS: s.TS, Replica: s.Replica}
	if ev.Replica == "" {
		ev.Replica = "peer"
	}
	st := rt.opts.Store
	switch s.Kind {
	case domain.EventRunStart, domain.EventRunEnd:
		r, err := st.GetRun(ctx, s.RunID)
		if errors.Is(err, domain.ErrNotFound) {
			return ev, false, nil
		}
		if err != nil {
			return ev, false, err
		}
		ev.Run = &r
	case domain.EventMessage:
		msgs, err := st.ReadMessages(ctx, s.SessionKey, domain.MessageQuery{SessionID: s.SessionID, BeforeSeq: s.Seq + 1, Limit: 1})
		if errors.Is(err, domain.ErrNotFound) {
			return ev, false, nil
		}
		if err != nil {
			return ev, false, err
		}
		if len(msgs) == 0 || msgs[0].Seq != s.Seq {
			return ev, false, nil
		}
		ev.Message = &msgs[0]
	case domain.EventSession:
		sess, err := st.GetSession(ctx, s.SessionKey)
		switch {
		case err == nil:
			ev.Session = &sess
		case !errors.Is(err, domain.ErrNotFound):
			return ev, false, err
		}
	default:
		return ev, false, nil
	}
	return ev, true, nil
}

// claimRefused reports a claim another replica stands in the way of: the
// session's lane is not free, or the run is being claimed there.
func claimRefused(err error) bool {
	var busy *replica.LaneBusyError
	return errors.As(err, &busy) || errors.Is(err, replica.ErrRunTaken)
}
