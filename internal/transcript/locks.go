package transcript

import "sync"

// pathLocks serializes work on one file while letting different files
// proceed in parallel. Entries are reference counted and removed when the
// last holder leaves, so the map holds only files in use right now.
type pathLocks struct {
	mu    sync.Mutex
	locks map[string]*pathLock
}

type pathLock struct {
	mu   sync.Mutex
	refs int // guarded by pathLocks.mu
}

// lock blocks until the caller holds path's lock and returns its release.
func (p *pathLocks) lock(path string) (unlock func()) {
	p.mu.Lock()
	if p.locks == nil {
		p.locks = make(map[string]*pathLock)
	}
	l := p.locks[path]
	if l == nil {
		l = &pathLock{}
		p.locks[path] = l
	}
	l.refs++
	p.mu.Unlock()

	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		p.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(p.locks, path)
		}
		p.mu.Unlock()
	}
}

// size reports how many paths have a lock entry (for tests).
func (p *pathLocks) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.locks)
}
