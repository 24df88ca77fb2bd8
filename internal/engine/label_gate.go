package engine

import "github.com/switchboard-go/switchboard/internal/keylock"

// labelGate makes "label already in use" hold under concurrent setters.
// The uniqueness check reads committed rows (the store's Tx cannot list
// sessions by label), and the SQLite writer batches several Updates into
// one transaction, so two patches giving one label to two sessions each
// saw it free and both committed. Holding one lock per (agent, label)
// across the check and the commit orders them: the second sees the first's
// row. Different labels do not wait for each other. The lock is per
// process: replicas on PostgreSQL each apply it to their own patches, so
// two replicas can still race for one label.
type labelGate struct {
	locks keylock.Map
}

// lock holds the gate of label among agent's sessions until the returned
// release is called.
func (g *labelGate) lock(agent, label string) (unlock func()) {
	return g.locks.Lock(agent + "\x00" + label)
}
