// Package keylock holds one mutex per key (a session key, a file path):
// work on one key is serialized while different keys proceed in parallel.
package keylock

import "sync"

// Map is a set of per-key mutexes. Entries are reference counted and
// removed when the last holder leaves, so the map holds only keys in use
// right now. Unlike a fixed array of striped locks, two different keys
// never wait for each other: a lock held across a store transaction would
// otherwise make an unrelated key that hashes to its stripe miss the
// writer's batch and wait a whole commit. The zero Map is ready to use.
type Map struct {
	mu    sync.Mutex
	locks map[string]*entry
}

type entry struct {
	mu   sync.Mutex
	refs int // guarded by Map.mu
}

// Lock blocks until the caller holds key's lock and returns its release,
// which must be called exactly once.
func (m *Map) Lock(key string) (unlock func()) {
	m.mu.Lock()
	if m.locks == nil {
		m.locks = make(map[string]*entry)
	}
	e := m.locks[key]
	if e == nil {
		e = &entry{}
		m.locks[key] = e
	}
	e.refs++
	m.mu.Unlock()

	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		m.mu.Lock()
		e.refs--
		if e.refs == 0 {
			delete(m.locks, key)
		}
		m.mu.Unlock()
	}
}

// Len reports how many keys have an entry: held, or waited for.
func (m *Map) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.locks)
}
