package transcript

import "sync"

// maxTombstones bounds the remembered removals. An append that races a
// removal comes within moments of it (the run that wrote it has just
// ended), so the newest few thousand are plenty; session ids are never
// reused, so a forgotten tombstone only matters for an append that late.
const maxTombstones = 16384

// tombstones remembers the transcript files this mirror removed or
// archived, so a late append for the same session id cannot create the
// file again: removal wins.
type tombstones struct {
	mu    sync.Mutex
	set   map[string]struct{}
	order []string // insertion order, oldest first, for eviction
}

func (t *tombstones) add(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.set == nil {
		t.set = map[string]struct{}{}
	}
	if _, ok := t.set[path]; ok {
		return
	}
	t.set[path] = struct{}{}
	t.order = append(t.order, path)
	if len(t.order) > maxTombstones {
		old := t.order[0]
		t.order = t.order[1:]
		delete(t.set, old)
	}
}

func (t *tombstones) has(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.set[path]
	return ok
}
