package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// sessionModels keeps the model of recently updated sessions as the
// runtime published them, so the final `res` of an `agent` call can name
// its session's model (agentMeta.model/provider) without reading the
// session and its usage accounts back from the store on every round trip.
//
// The runtime commits a run's end and the session row it wrote in one
// transaction, then publishes the run's end and that row (a
// sessions.changed "updated" event); the fan-out passes every such row
// here. A row is good for a run's final `res` when it is of the run's
// session id and was written at or after the run's end (updatedAt ≥
// endedAt): it is then the row the run's own end wrote, or a later one —
// what a read of the session after the run would have returned. Only
// rows the runtime wrote count (reason "updated"): they are the ones that
// set the session's model.
//
// Rows are kept in two generations of at most modelRowsKeep each (the
// older dropped when the newer fills), so memory is bounded however many
// sessions turn; an `agent` call whose row is gone, or that does not see
// it within modelWait, reads the session as before.
type sessionModels struct {
	// wait is modelWait (tests shorten it).
	wait      time.Duration
	mu        sync.Mutex
	cur, prev map[string]modelRow
	waiters   map[string]*modelWaiters
}

// modelRow is what agentMeta needs of a session row.
type modelRow struct {
	sessionID string
	model     string
	provider  string
	updatedAt int64
}

// modelWaiters are the `agent` calls waiting for a session's row: ch is
// closed when one arrives.
type modelWaiters struct {
	ch chan struct{}
	n  int
}

const (
	// modelRowsKeep bounds one generation of rows.
	modelRowsKeep = 4096
	// modelWait bounds how long an `agent` call waits for its session's
	// row after its run ended (the runtime publishes it right after
	// waking the call); past it the call reads the session.
	modelWait = time.Second
)

func newSessionModels() *sessionModels {
	return &sessionModels{wait: modelWait, cur: map[string]modelRow{}, prev: map[string]modelRow{}, waiters: map[string]*modelWaiters{}}
}

// observe takes the session row an engine event carries, if the runtime
// wrote it. The fan-out calls it for every event.
func (m *sessionModels) observe(ev domain.Event) {
	if ev.Kind != domain.EventSession || ev.Session == nil || ev.Reason != "updated" {
		return
	}
	s := ev.Session
	row := modelRow{sessionID: s.SessionID, model: s.Model, provider: s.ModelProvider, updatedAt: s.UpdatedAt}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.getLocked(s.Key); !ok || old.updatedAt <= row.updatedAt {
		if len(m.cur) >= modelRowsKeep {
			m.prev, m.cur = m.cur, make(map[string]modelRow, modelRowsKeep)
		}
		m.cur[s.Key] = row
	}
	if w := m.waiters[s.Key]; w != nil {
		close(w.ch)
		w.ch = make(chan struct{})
	}
}

func (m *sessionModels) getLocked(key string) (modelRow, bool) {
	if r, ok := m.cur[key]; ok {
		return r, true
	}
	r, ok := m.prev[key]
	return r, ok
}

// await returns the row of r's session that r's end wrote, or a later
// one, waiting up to modelWait for the runtime to publish it. ok is false
// when it did not come (the caller reads the session instead).
func (m *sessionModels) await(ctx context.Context, r domain.Run) (modelRow, bool) {
	// A row of the run's end that names no model (a run that ended
	// without a model call) answers at once: the caller's read decides,
	// without waiting out modelWait for a row that will not come.
	fresh := func(row modelRow, ok bool) bool {
		return ok && row.sessionID == r.SessionID && row.updatedAt >= r.EndedAt
	}
	m.mu.Lock()
	if row, ok := m.getLocked(r.SessionKey); fresh(row, ok) {
		m.mu.Unlock()
		return row, row.model != ""
	}
	w := m.waiters[r.SessionKey]
	if w == nil {
		w = &modelWaiters{ch: make(chan struct{})}
		m.waiters[r.SessionKey] = w
	}
	w.n++
	ch := w.ch
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		if w.n--; w.n == 0 {
			delete(m.waiters, r.SessionKey)
		}
		m.mu.Unlock()
	}()
	timer := time.NewTimer(m.wait)
	defer timer.Stop()
	for {
		select {
		case <-ch:
		case <-timer.C:
			return modelRow{}, false
		case <-ctx.Done():
			return modelRow{}, false
		}
		m.mu.Lock()
		row, ok := m.getLocked(r.SessionKey)
		ch = w.ch
		m.mu.Unlock()
		if fresh(row, ok) {
			return row, row.model != ""
		}
	}
}
