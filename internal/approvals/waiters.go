package approvals

import (
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Waiters wakes the tool calls waiting (within their timeoutSeconds) for
// the decision on an approval. Safe for concurrent use.
type Waiters struct {
	mu sync.Mutex
	m  map[string]map[chan domain.Approval]struct{}
}

// Wait returns a channel that receives the approval id once it is
// decided, and a func that stops waiting (call it in every case).
func (w *Waiters) Wait(id string) (<-chan domain.Approval, func()) {
	ch := make(chan domain.Approval, 1)
	w.mu.Lock()
	if w.m == nil {
		w.m = map[string]map[chan domain.Approval]struct{}{}
	}
	if w.m[id] == nil {
		w.m[id] = map[chan domain.Approval]struct{}{}
	}
	w.m[id][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.m[id], ch)
		if len(w.m[id]) == 0 {
			delete(w.m, id)
		}
	}
}

// Decided tells a's waiters that it is decided.
func (w *Waiters) Decided(a domain.Approval) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.m[a.ID] {
		select {
		case ch <- a:
		default:
		}
	}
}
