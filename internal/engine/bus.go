package engine

import (
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// bus fans events out to subscribers. A slow subscriber loses events
// rather than slowing runs down: events are notifications, the store is
// the truth.
type bus struct {
	mu   sync.Mutex
	next int
	subs map[int]chan domain.Event
}

func newBus() *bus { return &bus{subs: map[int]chan domain.Event{}} }

func (b *bus) publish(ev domain.Event) {
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
