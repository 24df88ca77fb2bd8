// Package keylock holds one mutex per key (a session key, a file path):
// work on one key is serialized while different keys proceed in parallel.
package keylock

import (
	"context"
	"sync"
)

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
	// held has room for one token: the holder's. A channel, not a
	// sync.Mutex, so LockContext can stop waiting when its ctx ends.
	held chan struct{}
	refs int // guarded by Map.mu
}

// Lock blocks until the caller holds key's lock and returns its release,
// which must be called exactly once.
func (m *Map) Lock(key string) (unlock func()) {
	e := m.enter(key)
	e.held <- struct{}{}
	return func() { m.leave(key, e) }
}

// LockContext is Lock that gives up when ctx ends first, returning ctx's
// error (and holding nothing).
func (m *Map) LockContext(ctx context.Context, key string) (unlock func(), err error) {
	e := m.enter(key)
	select {
	case e.held <- struct{}{}:
		return func() { m.leave(key, e) }, nil
	case <-ctx.Done():
		m.drop(key, e)
		return nil, ctx.Err()
	}
}

// enter finds or makes key's entry and counts the caller in it.
func (m *Map) enter(key string) *entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locks == nil {
		m.locks = make(map[string]*entry)
	}
	e := m.locks[key]
	if e == nil {
		e = &entry{held: make(chan struct{}, 1)}
		m.locks[key] = e
	}
	e.refs++
	return e
}

// leave releases key's lock held through e.
func (m *Map) leave(key string, e *entry) {
	<-e.held
	m.drop(key, e)
}

// drop counts the caller out of e, removing it when nobody is left.
func (m *Map) drop(key string, e *entry) {
	m.mu.Lock()
	e.refs--
	if e.refs == 0 {
		delete(m.locks, key)
	}
	m.mu.Unlock()
}

// Len reports how many keys have an entry: held, or waited for.
func (m *Map) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.locks)
}
