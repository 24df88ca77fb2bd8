package runs

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// An event crosses replicas as a signal of ids (SignalOf) that the
// receiving replica turns back into the event by reading the store
// (ResolveSignal), marked as a peer's so it is not told back. Events
// without ids (a delta, an unnumbered message) do not cross, and a signal
// naming what is gone resolves to nothing.
func TestSignalsCarryEventsAcrossReplicas(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	const key = "agent:main:sig"
	run := e.wait(e.submit(key, "hello", nil).ID)
	// A waiter may wake before the run's end event is published.
	testkit.WaitFor(t, 10*time.Second, "the run's end event", func() bool { return e.events.index(domain.EventRunEnd, run.ID) >= 0 })
	sess, err := e.st.GetSession(ctx, key)
	if err != nil {
		t.Fatal(err)
	}

	var kinds []string
	e.events.mu.Lock()
	events := append([]domain.Event(nil), e.events.events...)
	e.events.mu.Unlock()
	events = append(events, domain.Event{Kind: domain.EventSession, SessionKey: key, Reason: "patched", TS: 7})
	for _, ev := range events {
		s, ok := SignalOf(ev)
		if !ok {
			continue
		}
		kinds = append(kinds, ev.Kind)
		s.Replica = "there"
		got, ok, err := e.rt.ResolveSignal(ctx, s)
		if err != nil || !ok {
			t.Fatalf("resolve %s = %v, %v", ev.Kind, ok, err)
		}
		if got.Kind != ev.Kind || got.SessionKey != key || got.Replica != "there" || got.TS != ev.TS || got.Reason != ev.Reason {
			t.Fatalf("resolved %s = %+v, want the event as sent by replica there", ev.Kind, got)
		}
		switch ev.Kind {
		case domain.EventRunStart, domain.EventRunEnd:
			if got.Run == nil || got.Run.ID != run.ID {
				t.Fatalf("resolved %s names run %+v, want %s", ev.Kind, got.Run, run.ID)
			}
		case domain.EventMessage:
			if got.Message == nil || got.Message.Seq != ev.Message.Seq || got.Message.Content.Text() != ev.Message.Content.Text() {
				t.Fatalf("resolved message = %+v, want seq %d %q", got.Message, ev.Message.Seq, ev.Message.Content.Text())
			}
		case domain.EventSession:
			if got.Session == nil || got.Session.SessionID != sess.SessionID {
				t.Fatalf("resolved session = %+v", got.Session)
			}
		}
	}
	for _, want := range []string{domain.EventRunStart, domain.EventRunEnd, domain.EventMessage, domain.EventSession} {
		found := false
		for _, k := range kinds {
			found = found || k == want
		}
		if !found {
			t.Fatalf("no %s event crossed (crossed: %v)", want, kinds)
		}
	}

	for name, ev := range map[string]domain.Event{
		"a delta":               {Kind: domain.EventDelta, SessionKey: key},
		"a run event, no run":   {Kind: domain.EventRunEnd, SessionKey: key},
		"an unnumbered message": {Kind: domain.EventMessage, SessionKey: key, Message: &domain.Message{Role: "user"}},
		"a message event, none": {Kind: domain.EventMessage, SessionKey: key},
	} {
		if s, ok := SignalOf(ev); ok {
			t.Errorf("%s crosses replicas as %+v", name, s)
		}
	}

	peer := ""
	for name, s := range map[string]replica.Signal{
		"a run that is gone":         {Kind: domain.EventRunEnd, SessionKey: key, RunID: "gone"},
		"a message never stored":     {Kind: domain.EventMessage, SessionKey: key, SessionID: sess.SessionID, Seq: 999},
		"a session never made":       {Kind: domain.EventMessage, SessionKey: "agent:main:none", SessionID: "x", Seq: 1},
		"a kind that does not cross": {Kind: replica.SignalQueued, SessionKey: key, RunID: run.ID},
	} {
		if ev, ok, err := e.rt.ResolveSignal(ctx, s); ok || err != nil {
			t.Errorf("resolve %s = %+v, %v, %v; want nothing", name, ev, ok, err)
		} else {
			peer = ev.Replica
		}
	}
	if peer != "peer" {
		t.Fatalf("a signal without a replica name resolved as from %q, want \"peer\"", peer)
	}
	// A session event for a session deleted meanwhile resolves to the
	// event without its row: the session went away.
	gone, ok, err := e.rt.ResolveSignal(ctx, replica.Signal{Kind: domain.EventSession, SessionKey: "agent:main:none"})
	if err != nil || !ok || gone.Session != nil {
		t.Fatalf("session event of a missing session = %+v, %v, %v; want it without a row", gone, ok, err)
	}
}
