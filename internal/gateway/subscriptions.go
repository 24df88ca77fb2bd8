package gateway

import (
	"sync"
)

// fanout routes wire events to the connections that want them, indexed
// so a run's events cost O(its subscribers), not O(connections):
//   - a connection that holds no subscription gets the broadcast (an operator:
//     every event, as OpenClaw's clients expect; a non-operator: the
//     events of sessions it may see, filtered in conn.admit);
//   - one that subscribed gets sessions.changed if it called
//     sessions.subscribe, the chat/agent/session.message events of each
//     session it passed to sessions.messages.subscribe, and the events of
//     the runs it started itself (docs/design.md#events-and-subscriptions).
//
// A connection that falls behind never slows the others: its queue
// (eventBuffer) holds what it has not been sent yet. Streamed deltas take
// at most half of it — each carries the text so far, so a dropped one is
// no gap on screen — which keeps the other half for the events that must
// arrive (run start and end, messages, chat finals): a fast client under
// a flood of deltas loses none of those. A client whose queue still fills
// is too slow to keep up: it is disconnected (slow), as OpenClaw closes a
// slow consumer, and reads the truth from the store when it reconnects.
type fanout struct {
	mu sync.Mutex
	// broadcast holds the connections that never subscribed.
	broadcast map[*subscriber]struct{}
	// changed holds the sessions.subscribe connections.
	changed map[*subscriber]struct{}
	// keys and runs index message subscriptions by session key and
	// started runs by run id.
	keys map[string]map[*subscriber]struct{}
	runs map[string]map[*subscriber]struct{}
	// backlog keeps the recent events of runs no connection has claimed
	// as its own yet, so a run that starts (or ends) before its starter
	// learns the run id is still delivered to it whole (claimRun).
	backlog backlog
}

// subscriber is one connection's place in the fan-out. Its fields are
// guarded by fanout.mu.
type subscriber struct {
	ch chan wireEvent
	// subscribed is set while the connection holds a subscription; a
	// connection that holds none (never subscribed, or unsubscribed from
	// everything) is on the broadcast.
	subscribed bool
	changed    bool
	keys       map[string]struct{}
	runs       map[string]struct{}
	// slow is closed when an event that must arrive did not fit in ch:
	// the connection's pump then disconnects it. overflowed records that
	// it is closed; nothing is queued after it.
	slow       chan struct{}
	overflowed bool
}

func newFanout() *fanout {
	return &fanout{broadcast: map[*subscriber]struct{}{}, changed: map[*subscriber]struct{}{},
		keys: map[string]map[*subscriber]struct{}{}, runs: map[string]map[*subscriber]struct{}{},
		backlog: newBacklog(backlogRuns, backlogEvents, backlogBytes)}
}

// subscribe adds a connection, on the broadcast, and returns its event
// channel and its release.
func (f *fanout) subscribe(buffer int) (*subscriber, func()) {
	sub := &subscriber{ch: make(chan wireEvent, buffer), keys: map[string]struct{}{}, runs: map[string]struct{}{}, slow: make(chan struct{})}
	f.mu.Lock()
	f.broadcast[sub] = struct{}{}
	f.mu.Unlock()
	var once sync.Once
	return sub, func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			delete(f.broadcast, sub)
			delete(f.changed, sub)
			for k := range sub.keys {
				removeFrom(f.keys, k, sub)
			}
			for r := range sub.runs {
				removeFrom(f.runs, r, sub)
			}
		})
	}
}

// place puts sub on the broadcast or off it by what it holds (f.mu held).
func (f *fanout) place(sub *subscriber) {
	sub.subscribed = sub.changed || len(sub.keys) > 0
	if sub.subscribed {
		delete(f.broadcast, sub)
	} else {
		f.broadcast[sub] = struct{}{}
	}
}

// subscribeSessions is sessions.subscribe (on) and sessions.unsubscribe.
func (f *fanout) subscribeSessions(sub *subscriber, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sub.changed = on
	if on {
		f.changed[sub] = struct{}{}
	} else {
		delete(f.changed, sub)
	}
	f.place(sub)
}

// subscribeMessages is sessions.messages.subscribe (on) and
// sessions.messages.unsubscribe of one canonical session key. It reports
// how many sessions sub is subscribed to afterwards.
func (f *fanout) subscribeMessages(sub *subscriber, key string, on bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if on {
		sub.keys[key] = struct{}{}
		addTo(f.keys, key, sub)
	} else {
		delete(sub.keys, key)
		removeFrom(f.keys, key, sub)
	}
	f.place(sub)
	return len(sub.keys)
}

// subscribeMessagesWithin subscribes sub to key unless that would pass
// max sessions; ok is false then.
func (f *fanout) subscribeMessagesWithin(sub *subscriber, key string, max int) (n int, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, has := sub.keys[key]; !has && len(sub.keys) >= max {
		return len(sub.keys), false
	}
	sub.keys[key] = struct{}{}
	addTo(f.keys, key, sub)
	f.place(sub)
	return len(sub.keys), true
}

// claimRun makes runID one sub started: sub gets its events until it
// ends, the ones published before this call included (from the backlog)
// unless sub received them already through the broadcast or a message
// subscription of the run's session.
func (f *fanout) claimRun(sub *subscriber, runID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	past, ended := f.backlog.take(runID)
	for _, ev := range past {
		if !f.routes(sub, ev) {
			send(sub, ev)
		}
	}
	if ended {
		return
	}
	sub.runs[runID] = struct{}{}
	addTo(f.runs, runID, sub)
}

// routes reports whether ev reaches sub without a run claim (f.mu held).
func (f *fanout) routes(sub *subscriber, ev wireEvent) bool {
	if !sub.subscribed {
		return !ev.subscribedOnly
	}
	if ev.changed {
		return sub.changed
	}
	_, ok := sub.keys[ev.sessionKey]
	return ok
}

// publish hands ev to every connection that wants it, each once.
func (f *fanout) publish(ev wireEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !ev.subscribedOnly {
		for sub := range f.broadcast {
			send(sub, ev)
		}
	}
	if ev.changed {
		for sub := range f.changed {
			send(sub, ev)
		}
		return
	}
	subs := f.keys[ev.sessionKey]
	for sub := range subs {
		send(sub, ev)
	}
	if ev.runID == "" || ev.subscribedOnly {
		return
	}
	owners, claimed := f.runs[ev.runID]
	for sub := range owners {
		if !f.routes(sub, ev) {
			send(sub, ev)
		}
	}
	if ev.ended {
		for sub := range owners {
			delete(sub.runs, ev.runID)
		}
		delete(f.runs, ev.runID)
	}
	if !claimed {
		f.backlog.add(ev)
	}
}

// send queues ev for sub without blocking (f.mu held). A delta is dropped
// once the queue is half full; any other event that does not fit marks
// sub slow (see fanout).
func send(sub *subscriber, ev wireEvent) {
	if sub.overflowed {
		return
	}
	if ev.delta && len(sub.ch) >= cap(sub.ch)/2 {
		return
	}
	select {
	case sub.ch <- ev:
	default:
		sub.overflowed = true
		close(sub.slow)
	}
}

func addTo(m map[string]map[*subscriber]struct{}, k string, sub *subscriber) {
	set := m[k]
	if set == nil {
		set = map[*subscriber]struct{}{}
		m[k] = set
	}
	set[sub] = struct{}{}
}

func removeFrom(m map[string]map[*subscriber]struct{}, k string, sub *subscriber) {
	if set := m[k]; set != nil {
		delete(set, sub)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}
