package engine

import "github.com/switchboard-go/switchboard/internal/keylock"

// idemGate orders the calls that carry one idempotency key from the
// lookup of the key to the commit of its run. The store dedupes the run
// itself (CreateRun), but a chat turn "/reset <text>" resets the session
// between the lookup and the commit: a duplicate that looked before the
// first call committed reset the session again, stopping the run the
// first call had just started, and answered with that cancelled run. With
// the gate the duplicate looks after the commit and finds the run. Calls
// with different keys do not wait for each other. The lock is per process:
// on PostgreSQL, duplicates sent to two replicas can still both reset.
type idemGate struct {
	locks keylock.Map
}

// lock holds the gate of the scoped key idem until the returned release
// is called; an empty key holds nothing.
func (g *idemGate) lock(idem string) (unlock func()) {
	if idem == "" {
		return func() {}
	}
	return g.locks.Lock(idem)
}
