package gateway

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// eventSessionKey is the session an engine event is about.
func eventSessionKey(ev domain.Event) string {
	if ev.Run != nil && ev.Run.SessionKey != "" {
		return ev.Run.SessionKey
	}
	return ev.SessionKey
}

// wireEvent is a protocol event whose payload is already JSON, so an event
// that goes to many connections is mapped and encoded once.
type wireEvent struct {
	name    []byte // the JSON string of the event name
	payload json.RawMessage
	// sessionKey is the session the event is about, for the per-connection
	// visibility filter of non-operators; changed marks a
	// sessions.changed event, after which visibility is checked again.
	sessionKey string
	changed    bool
}

// frame builds the event frame with a connection's seq.
func (w wireEvent) frame(seq int64) []byte {
	b := make([]byte, 0, len(w.payload)+len(w.name)+48)
	b = append(b, `{"type":"event","event":`...)
	b = append(b, w.name...)
	b = append(b, `,"payload":`...)
	b = append(b, w.payload...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	return append(b, '}')
}

// fanout turns engine events into wire events once and hands them to every
// connection; each connection filters what it may see (conn.admit). A
// connection that falls behind loses events rather than slowing the
// others (events are notifications; the store is the truth).
type fanout struct {
	mu   sync.Mutex
	subs map[chan wireEvent]struct{}
}

func newFanout() *fanout { return &fanout{subs: map[chan wireEvent]struct{}{}} }

// subscribe returns a connection's event channel and its release.
func (f *fanout) subscribe(buffer int) (<-chan wireEvent, func()) {
	ch := make(chan wireEvent, buffer)
	f.mu.Lock()
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.subs, ch)
			f.mu.Unlock()
		})
	}
}

func (f *fanout) publish(ev wireEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// run maps and encodes engine events until ctx ends. The Server owns it
// (started in Serve, stopped with the background goroutines).
func (f *fanout) run(ctx context.Context, s *Server) {
	events, stop := s.eng.Subscribe(eventBuffer)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			key := eventSessionKey(ev)
			for _, out := range s.mapEvent(ev) {
				payload, err := json.Marshal(out.payload)
				if err != nil {
					s.log.Warn("gateway: event does not encode", "event", out.name, "err", err)
					continue
				}
				name, _ := json.Marshal(out.name)
				f.publish(wireEvent{name: name, payload: payload, sessionKey: key, changed: ev.Kind == domain.EventSession})
			}
		}
	}
}
