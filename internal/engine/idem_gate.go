package engine

import "context"

// lockIdem orders the calls that carry one idempotency key from the
// lookup of the key to the commit of its run. The store dedupes the run
// itself (CreateRun), but a chat turn "/reset <text>" resets the session
// between the lookup and the commit: a duplicate that looked before the
// first call committed reset the session again, stopping the run the
// first call had just started, and answered with that cancelled run. With
// the gate the duplicate looks after the commit and finds the run. Calls
// with different keys do not wait for each other. The gate is the store's
// (domain.Store.Gate), so duplicates sent to two replicas on PostgreSQL
// are ordered too. Only a chat that resets takes it (chat.go): any other
// duplicate is deduped by the store alone. An empty key holds nothing.
func (e *Engine) lockIdem(ctx context.Context, idem string) (unlock func(), err error) {
	if idem == "" {
		return func() {}, nil
	}
	return e.store.Gate(ctx, "idem\x00"+idem)
}
