package runs

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
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
	if rt.sched.isClosing() {
		return domain.Run{}, false, domain.Errorf(domain.CodeUnavailable, "switchboard is shutting down")
	}
	r = rt.fill(r)
	own := rt.ownNew(ctx, r)
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
