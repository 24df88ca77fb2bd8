package gateway

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// sessionEvent is the event the runtime publishes after a run's end.
func sessionEvent(key, id, model, provider, reason string, updatedAt int64) domain.Event {
	return domain.Event{Kind: domain.EventSession, SessionKey: key, Reason: reason,
		Session: &domain.Session{Key: key, SessionID: id, Model: model, ModelProvider: provider, UpdatedAt: updatedAt}}
}

// waitersOf reports how many calls wait for key's row.
func (m *sessionModels) waitersOf(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.waiters[key]; w != nil {
		return w.n
	}
	return 0
}

// TestSessionModelsNoModelAnswersAtOnce: the row of a run's end that
// names no model (the run made no model call) sends the caller to its
// read at once instead of waiting out modelWait.
func TestSessionModelsNoModelAnswersAtOnce(t *testing.T) {
	run := domain.Run{ID: "r", SessionKey: "agent:main:a", SessionID: "s1", EndedAt: 100}
	m := newSessionModels()
	m.wait = time.Hour // a wait would hang the test until its deadline
	m.observe(sessionEvent(run.SessionKey, "s1", "", "", "updated", 100))
	if row, ok := m.await(context.Background(), run); ok {
		t.Fatalf("await ok with row %+v, want a read", row)
	}
	// The same while waiting: the row arriving later also answers.
	m = newSessionModels()
	m.wait = time.Hour
	done := make(chan bool)
	go func() {
		_, ok := m.await(context.Background(), run)
		done <- ok
	}()
	for m.waitersOf(run.SessionKey) == 0 {
		runtime.Gosched()
	}
	m.observe(sessionEvent(run.SessionKey, "s1", "", "", "updated", 100))
	select {
	case ok := <-done:
		if ok {
			t.Fatal("await ok for a row without a model")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("await kept waiting after its run's row arrived without a model")
	}
}

// TestSessionModelsFreshRowOnly: a run's final res takes only a row the
// runtime wrote at or after the run's end, of the run's session id.
func TestSessionModelsFreshRowOnly(t *testing.T) {
	run := domain.Run{ID: "r", SessionKey: "agent:main:a", SessionID: "s1", EndedAt: 100}
	tests := []struct {
		name string
		ev   domain.Event
		ok   bool
	}{
		{"written by the run's end", sessionEvent(run.SessionKey, "s1", "openai/gpt", "openai", "updated", 100), true},
		{"written later", sessionEvent(run.SessionKey, "s1", "openai/gpt", "openai", "updated", 180), true},
		{"written before the end", sessionEvent(run.SessionKey, "s1", "openai/gpt", "openai", "updated", 99), false},
		{"another session id (reset)", sessionEvent(run.SessionKey, "s2", "openai/gpt", "openai", "updated", 120), false},
		{"a patch, not the runtime", sessionEvent(run.SessionKey, "s1", "openai/gpt", "openai", "patched", 120), false},
		{"no model", sessionEvent(run.SessionKey, "s1", "", "", "updated", 120), false},
		{"another session", sessionEvent("agent:main:b", "s1", "openai/gpt", "openai", "updated", 120), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newSessionModels()
			m.wait = 20 * time.Millisecond
			m.observe(tc.ev)
			row, ok := m.await(context.Background(), run)
			if ok != tc.ok {
				t.Fatalf("await ok = %v, want %v (row %+v)", ok, tc.ok, row)
			}
			if ok && (row.model != "openai/gpt" || row.provider != "openai") {
				t.Fatalf("row = %+v", row)
			}
			if n := m.waitersOf(run.SessionKey); n != 0 {
				t.Fatalf("%d waiters left behind", n)
			}
		})
	}
}

// TestSessionModelsAwaitWakes: a call that waits gets the row published
// after it began waiting; an older row published later does not replace
// a newer one.
func TestSessionModelsAwaitWakes(t *testing.T) {
	m := newSessionModels()
	m.wait = time.Minute // the row must wake it, not the timer
	run := domain.Run{ID: "r", SessionKey: "agent:main:a", SessionID: "s1", EndedAt: 100}
	type result struct {
		row modelRow
		ok  bool
	}
	got := make(chan result, 1)
	go func() {
		row, ok := m.await(context.Background(), run)
		got <- result{row, ok}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for m.waitersOf(run.SessionKey) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("await never registered")
		}
		time.Sleep(time.Millisecond)
	}
	// A stale row wakes it without ending the wait; the run's own does.
	m.observe(sessionEvent(run.SessionKey, "s1", "old/model", "old", "updated", 50))
	m.observe(sessionEvent(run.SessionKey, "s1", "new/model", "new", "updated", 100))
	select {
	case r := <-got:
		if !r.ok || r.row.model != "new/model" {
			t.Fatalf("await = %+v", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("await did not return after the run's row")
	}
	m.observe(sessionEvent(run.SessionKey, "s1", "older/model", "older", "updated", 90))
	if row, ok := m.await(context.Background(), run); !ok || row.model != "new/model" {
		t.Fatalf("an older row replaced a newer one: %+v %v", row, ok)
	}
}

// TestSessionModelsCancelAndBound: a cancelled call stops waiting, and
// the rows kept stay within two generations however many sessions turn.
func TestSessionModelsCancelAndBound(t *testing.T) {
	m := newSessionModels()
	m.wait = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := m.await(ctx, domain.Run{SessionKey: "k", SessionID: "s", EndedAt: 1}); ok {
		t.Fatal("a cancelled wait found a row that was never published")
	}
	for i := range 3*modelRowsKeep + 7 {
		m.observe(sessionEvent(fmt.Sprintf("agent:main:s%d", i), "s", "m/x", "m", "updated", 1))
	}
	m.mu.Lock()
	kept := len(m.cur) + len(m.prev)
	m.mu.Unlock()
	if kept > 2*modelRowsKeep {
		t.Fatalf("%d rows kept, bound %d", kept, 2*modelRowsKeep)
	}
	last := fmt.Sprintf("agent:main:s%d", 3*modelRowsKeep+6)
	if _, ok := m.await(context.Background(), domain.Run{SessionKey: last, SessionID: "s", EndedAt: 1}); !ok {
		t.Fatal("the newest row was dropped")
	}
}

// TestEndedRunsKeepsTheLastEnded: only ended runs are remembered, at most
// endedRunsKeep of them, the newest.
func TestEndedRunsKeepsTheLastEnded(t *testing.T) {
	var e endedRuns
	e.add(domain.Run{ID: "running", Status: domain.RunRunning})
	if _, ok := e.get("running"); ok {
		t.Fatal("a running run was remembered")
	}
	for i := range endedRunsKeep + 5 {
		e.add(domain.Run{ID: fmt.Sprint("r", i), Status: domain.RunOK, StartedAt: 1, EndedAt: int64(2 + i), Reply: "long reply"})
	}
	if len(e.runs) != endedRunsKeep {
		t.Fatalf("%d runs kept, want %d", len(e.runs), endedRunsKeep)
	}
	if _, ok := e.get("r0"); ok {
		t.Fatal("the oldest run is still kept")
	}
	last := fmt.Sprint("r", endedRunsKeep+4)
	r, ok := e.get(last)
	if !ok || r.Status != domain.RunOK || r.EndedAt != int64(2+endedRunsKeep+4) || r.Reply != "" {
		t.Fatalf("kept %+v %v (want the wait's fields only)", r, ok)
	}
	if got, want := waitPayload(r).Status, "ok"; got != want {
		t.Fatalf("wait payload status = %v", got)
	}
}
