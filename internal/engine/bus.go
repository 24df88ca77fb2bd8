package engine

import (
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
	"github.com/switchboard-go/switchboard/internal/runs"
)

// bus fans events out to subscribers. A slow subscriber loses events
// rather than slowing runs down: events are notifications, the store is
// the truth.
//
// With replicas, this process's own events are also told to the others
// (by ids; see replica.Cluster), and the events of runs executed on
// another replica arrive here read back from the store (ev.Replica set),
// so a client sees the same events whichever replica it is connected to.
type bus struct {
	mu      sync.Mutex
	next    int
	subs    map[int]chan domain.Event
	cluster replica.Cluster // nil when alone on the store
}

func newBus(c replica.Cluster) *bus {
	if c != nil && !c.Shared() {
		c = nil
	}
	return &bus{subs: map[int]chan domain.Event{}, cluster: c}
}

func (b *bus) publish(ev domain.Event) {
	if b.cluster != nil && ev.Replica == "" {
		if s, ok := runs.SignalOf(ev); ok {
			b.cluster.Signal(s)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// Subscribe returns a channel of events and a function that ends the
// subscription (and closes the channel).
func (e *Engine) Subscribe(buffer int) (<-chan domain.Event, func()) {
	if buffer <= 0 {
		buffer = 256
	}
	b := e.bus
	ch := make(chan domain.Event, buffer)
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = ch
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			b.mu.Unlock()
			close(ch)
		})
	}
}

// publishSession tells live clients a session changed.
func (e *Engine) publishSession(key, reason string) {
	e.bus.publish(domain.Event{Kind: domain.EventSession, SessionKey: key, Reason: reason, TS: e.nowMs()})
}
