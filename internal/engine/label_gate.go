package engine

import "context"

// lockLabel makes "label already in use" hold under concurrent setters.
// The uniqueness check reads committed rows (the store's Tx cannot list
// sessions by label), and the SQLite writer batches several Updates into
// one transaction, so two patches giving one label to two sessions each
// saw it free and both committed. Holding the store's gate of (agent,
// label) across the check and the commit orders them: the second sees the
// first's row. Different labels do not wait for each other. The gate is
// the store's (domain.Store.Gate), so on PostgreSQL it orders the setters
// of every replica, not only this process's.
func (e *Engine) lockLabel(ctx context.Context, agent, label string) (unlock func(), err error) {
	return e.store.Gate(ctx, "label\x00"+agent+"\x00"+label)
}
