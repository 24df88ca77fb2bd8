package runs

import (
	"context"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// executing is the executor's state: the context every run's context
// derives from, and the registry of the runs executing in this process:
// how to cancel each, the steer runs each took in (steer.go), and the
// lease generation each was claimed under (lease.go). One lock guards the
// three maps because a lost lease must cancel exactly the runs claimed
// under it, never one claimed again here under the next lease meanwhile.
// Stop cancels every run executing here; the scheduler's goroutines carry
// them out, so the scheduler's Wait is what waits for them.
type executing struct {
	// ctx is the parent of every run's context; Stop cancels it.
	ctx  context.Context
	stop context.CancelCauseFunc

	mu     sync.Mutex
	active map[string]context.CancelCauseFunc
	joined map[string][]domain.Run
	leases leaseEpochs
}

func newExecuting() *executing {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &executing{ctx: ctx, stop: cancel, active: map[string]context.CancelCauseFunc{}, joined: map[string][]domain.Run{}}
}

// Stop cancels every run executing here, and every run started later, as
// interrupted by the stop of the process (errShutdown).
func (x *executing) Stop() { x.stop(errShutdown) }

// leaseEpochs tells the runs claimed under a lease that was lost (taken
// over: another replica resolves them) from those claimed under the lease
// Renew took next, which a lost lease must not cancel.
type leaseEpochs struct {
	epoch uint64
	of    map[string]uint64 // run id → epoch it was claimed in
}

// add registers run id as executing here, cancelled through cancel.
func (x *executing) add(id string, cancel context.CancelCauseFunc) {
	x.mu.Lock()
	x.active[id] = cancel
	x.mu.Unlock()
}

// remove forgets run id: its executor exited.
func (x *executing) remove(id string) {
	x.mu.Lock()
	delete(x.active, id)
	delete(x.leases.of, id)
	x.mu.Unlock()
}

// cancelOf returns how to cancel run id, nil when it is not executing here.
func (x *executing) cancelOf(id string) context.CancelCauseFunc {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.active[id]
}

// cancel cancels run id with cause; it reports whether the run executes
// here.
func (x *executing) cancel(id string, cause error) bool {
	if c := x.cancelOf(id); c != nil {
		c(cause)
		return true
	}
	return false
}

// cancelAll cancels the runs ids still executing here with cause.
func (x *executing) cancelAll(ids []string, cause error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		if c := x.active[id]; c != nil {
			c(cause)
		}
	}
}

// has reports whether run id executes here.
func (x *executing) has(id string) bool { return x.cancelOf(id) != nil }

// count returns how many runs execute here.
func (x *executing) count() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.active)
}

// ids lists the runs executing here.
func (x *executing) ids() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	ids := make([]string, 0, len(x.active))
	for id := range x.active {
		ids = append(ids, id)
	}
	return ids
}

// join records that host took in steer run s: cancelling s cancels host,
// as its message is part of host now.
func (x *executing) join(host string, s domain.Run) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.joined[host] = append(x.joined[host], s)
	if c := x.active[host]; c != nil {
		x.active[s.ID] = c
	}
}

// takeJoined returns and forgets the steer runs host took in.
func (x *executing) takeJoined(host string) []domain.Run {
	x.mu.Lock()
	defer x.mu.Unlock()
	joined := x.joined[host]
	delete(x.joined, host)
	for _, j := range joined {
		delete(x.active, j.ID)
	}
	return joined
}

// underLease notes that run id was claimed under the current lease.
func (x *executing) underLease(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.leases.of == nil {
		x.leases.of = map[string]uint64{}
	}
	x.leases.of[id] = x.leases.epoch
}

// loseLease cancels the runs claimed under the current lease with cause
// and starts a new generation for the claims under the next one.
func (x *executing) loseLease(cause error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for id, e := range x.leases.of {
		if e == x.leases.epoch {
			if c := x.active[id]; c != nil {
				c(cause)
			}
		}
	}
	x.leases.epoch++
}
