package gateway

import (
	"fmt"
	"testing"
)

func wev(name, key, run string, opts ...func(*wireEvent)) wireEvent {
	ev := wireEvent{name: []byte(`"` + name + `"`), payload: []byte(`{}`), sessionKey: key, runID: run}
	for _, o := range opts {
		o(&ev)
	}
	return ev
}

func ended(ev *wireEvent)   { ev.ended = true }
func isDelta(ev *wireEvent) { ev.delta = true }
func onlySub(ev *wireEvent) { ev.subscribedOnly = true }
func changed(ev *wireEvent) { ev.changed = true }

// got drains sub's queue into "name key run" strings.
func got(sub *subscriber) []string {
	var out []string
	for {
		select {
		case ev := <-sub.ch:
			out = append(out, fmt.Sprintf("%s %s %s", ev.name, ev.sessionKey, ev.runID))
		default:
			return out
		}
	}
}

// TestFanoutRouting: who gets which event, each once.
func TestFanoutRouting(t *testing.T) {
	f := newFanout()
	bc, _ := f.subscribe(64)
	onA, _ := f.subscribe(64)
	onSessions, _ := f.subscribe(64)
	starter, _ := f.subscribe(64)
	both, _ := f.subscribe(64)
	f.subscribeMessages(onA, "a", true)
	f.subscribeSessions(onSessions, true)
	f.subscribeMessages(starter, "z", true)
	f.subscribeMessages(both, "b", true)
	f.claimRun(starter, "rb")
	f.claimRun(both, "rb") // subscribed to b and started rb: once, not twice

	f.publish(wev("chat", "a", "ra"))
	f.publish(wev("agent", "b", "rb", isDelta))
	f.publish(wev("session.message", "a", "ra", onlySub))
	f.publish(wev("sessions.changed", "a", "", changed))
	f.publish(wev("chat", "b", "rb", ended))
	f.publish(wev("chat", "b", "rb2"))

	tests := []struct {
		name string
		sub  *subscriber
		want []string
	}{
		{"broadcast", bc, []string{`"chat" a ra`, `"agent" b rb`, `"sessions.changed" a `, `"chat" b rb`, `"chat" b rb2`}},
		{"messages of a", onA, []string{`"chat" a ra`, `"session.message" a ra`}},
		{"sessions.subscribe", onSessions, []string{`"sessions.changed" a `}},
		{"starter of rb", starter, []string{`"agent" b rb`, `"chat" b rb`}},
		{"subscribed to b and starter of rb", both, []string{`"agent" b rb`, `"chat" b rb`, `"chat" b rb2`}},
	}
	for _, tt := range tests {
		if g := fmt.Sprint(got(tt.sub)); g != fmt.Sprint(tt.want) {
			t.Errorf("%s got %s, want %s", tt.name, g, fmt.Sprint(tt.want))
		}
	}
	if _, ok := f.runs["rb"]; ok {
		t.Error("the run's claim outlived its end")
	}
}

// TestFanoutBacklog: a run that started — or ended — before its starter
// claimed it is delivered to the starter whole, deltas excepted.
func TestFanoutBacklog(t *testing.T) {
	f := newFanout()
	starter, _ := f.subscribe(64)
	f.subscribeMessages(starter, "elsewhere", true)
	f.publish(wev("agent", "k", "r1"))
	f.publish(wev("agent", "k", "r1", isDelta))
	f.publish(wev("chat", "k", "r1", ended))
	f.publish(wev("agent", "k", "r2"))
	if g := got(starter); len(g) != 0 {
		t.Fatalf("events before any claim: %v", g)
	}
	f.claimRun(starter, "r1")
	if g, want := fmt.Sprint(got(starter)), fmt.Sprint([]string{`"agent" k r1`, `"chat" k r1`}); g != want {
		t.Errorf("claim of an ended run replays %s, want %s", g, want)
	}
	if _, ok := f.runs["r1"]; ok {
		t.Error("an ended run was registered")
	}
	f.claimRun(starter, "r2")
	f.publish(wev("chat", "k", "r2", ended))
	if g, want := fmt.Sprint(got(starter)), fmt.Sprint([]string{`"agent" k r2`, `"chat" k r2`}); g != want {
		t.Errorf("claim of a running run: %s, want %s", g, want)
	}
}

// TestFanoutBroadcastReturns: unsubscribing from everything puts a
// connection back on the broadcast; a release removes it everywhere.
func TestFanoutBroadcastReturns(t *testing.T) {
	f := newFanout()
	sub, release := f.subscribe(64)
	f.subscribeMessages(sub, "a", true)
	f.subscribeSessions(sub, true)
	f.publish(wev("chat", "b", "r"))
	f.subscribeSessions(sub, false)
	f.subscribeMessages(sub, "a", false)
	f.publish(wev("chat", "b", "r2"))
	if g := fmt.Sprint(got(sub)); g != fmt.Sprint([]string{`"chat" b r2`}) {
		t.Errorf("got %s, want only the event after the last unsubscribe", g)
	}
	f.subscribeMessages(sub, "a", true)
	f.claimRun(sub, "r3")
	release()
	if len(f.broadcast)+len(f.changed)+len(f.keys)+len(f.runs) != 0 {
		t.Errorf("a released connection is still indexed: %d %d %d %d", len(f.broadcast), len(f.changed), len(f.keys), len(f.runs))
	}
}

// TestBacklogBounds: the window keeps the last runs only and caps a run's
// events, its end always kept.
func TestBacklogBounds(t *testing.T) {
	b := newBacklog(2, 2, 1<<20)
	for _, r := range []string{"r1", "r2", "r3"} {
		b.add(wev("agent", "k", r))
	}
	if evs, _ := b.take("r1"); evs != nil {
		t.Errorf("the oldest run outlived the window: %d events", len(evs))
	}
	for range 5 {
		b.add(wev("agent", "k", "r3"))
	}
	b.add(wev("chat", "k", "r3", ended))
	evs, done := b.take("r3")
	if len(evs) != 3 || !done || !evs[2].ended {
		t.Errorf("r3: %d events, ended %v; want the cap of 2 plus its end", len(evs), done)
	}
}

// TestSubscribeLimit: past max sessions a subscribe is refused, the same
// key again is not a new one, and the refused key is not subscribed.
func TestSubscribeLimit(t *testing.T) {
	f := newFanout()
	sub, _ := f.subscribe(8)
	for _, k := range []string{"a", "b", "a"} {
		if _, ok := f.subscribeMessagesWithin(sub, k, 2); !ok {
			t.Fatalf("subscribe %s refused within the limit", k)
		}
	}
	if n, ok := f.subscribeMessagesWithin(sub, "c", 2); ok || n != 2 {
		t.Fatalf("third session: ok %v, count %d; want refused at 2", ok, n)
	}
	if _, held := f.keys["c"]; held {
		t.Error("the refused key is indexed")
	}
}
