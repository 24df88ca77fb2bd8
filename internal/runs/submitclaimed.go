package runs

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/growstack"
)

// createQueued creates r queued, the ordinary way: its lane's drainer
// claims it later in a transaction of its own (execute).
func (rt *Runtime) createQueued(ctx context.Context, r domain.Run, prepare func(tx domain.Tx) error) (stored domain.Run, created bool, err error) {
	err = rt.opts.Store.Update(ctx, func(tx domain.Tx) error {
		if prepare != nil {
			if err := prepare(tx); err != nil {
				return err
			}
		}
		var err error
		stored, created, err = rt.transition(tx, r, domain.RunQueued, r.CreatedAt)
		return err
	})
	return stored, created, err
}

// submitClaimed submits r with its session's lane reserved here (res): as
// a quick turn when it may be one (quick.go), else claimed in the
// transaction that creates it. started reports that an executor took the
// run over (or the quick turn resolved it); it is false when the claim was
// refused (another replica holds the lane: r is created queued) or nothing
// was created.
func (rt *Runtime) submitClaimed(ctx context.Context, r domain.Run, spec *Spec, sess *domain.Session, prepare func(tx domain.Tx) error, res *reservation) (stored domain.Run, created, started bool, err error) {
	if spec == nil {
		// Decoded here rather than in the transaction, which runs on the
		// store's single writer goroutine (every turn's writes queue on it).
		decoded, err := decodeRunSpec(r)
		if err != nil {
			rt.releaseLane(res)
			return domain.Run{}, false, false, err
		}
		spec = &decoded
	}
	runCtx, done := rt.activate(r)
	if rt.quickEligible(r, spec) {
		if stored, created, handled, err := rt.submitQuick(ctx, r, spec, sess, prepare, res, runCtx, done); handled {
			return stored, created, true, err
		}
	}
	var c claimed
	busy := false
	fn := func(tx domain.Tx) error {
		busy = false
		if prepare != nil {
			if err := prepare(tx); err != nil {
				return err
			}
		}
		var err error
		if !rt.shared() {
			// Alone on the store, the lane reserved: nothing can refuse
			// the claim, so the run is created running.
			c, created, err = rt.createStartedTx(tx, r, spec)
			stored = c.run
			return err
		}
		stored, created, err = rt.transition(tx, r, domain.RunQueued, r.CreatedAt)
		if err != nil || !created {
			return err
		}
		c, err = rt.claimTx(tx, stored.ID)
		if claimRefused(err) {
			// Another replica holds the session's lane (or the run):
			// the run is created queued and waits for its turn.
			busy = true
			return nil
		}
		if err != nil {
			return err
		}
		stored = c.run
		return nil
	}
	// Where the store can say later when a commit is durable
	// (domain.DeferredStore), the run starts before its claim is: its
	// model call overlaps the flush, and its end's durable commit usually
	// carries the submission too. Nothing is acknowledged or published
	// before it is durable.
	var durable domain.Durable
	if ds, ok := rt.opts.Store.(domain.DeferredStore); ok {
		durable, err = ds.UpdateDeferred(ctx, fn)
	} else {
		err = rt.opts.Store.Update(ctx, fn)
	}
	if err != nil || !created || busy {
		done()
		rt.releaseLane(res)
		if durable != nil {
			// Nothing runs meanwhile: wait here, before anything is shown.
			if werr := durable.Wait(ctx); werr != nil && err == nil {
				err = werr
			}
		}
		return stored, created, false, err
	}
	c.durable = durable
	c.showStart = rt.starter(c)
	go func() {
		defer rt.sched.wg.Done()
		growstack.Grow()
		rt.carryOut(runCtx, c)
		done()
		<-res.sem
		rt.drainLane(res.key, res.lane)
	}()
	if durable != nil {
		if err := durable.Wait(ctx); err != nil {
			// The run goes on (its end is recorded as usual); the caller
			// is not told of it, as it may not last.
			return domain.Run{}, false, true, err
		}
		c.showStart()
	}
	return stored, true, true, nil
}
