package runs

import (
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// ProgressInterval is the least time between two progress events of one
// run (the record itself is always current).
const ProgressInterval = time.Second

// progressBoard holds the progress record of every run executing here and
// publishes changes, throttled per run. Updates between two events are
// not lost: the record is readable at any time (Progress), and the next
// event after the interval carries the latest state.
type progressBoard struct {
	now  func() time.Time
	emit func(domain.Event)

	mu   sync.Mutex
	runs map[string]*progressEntry
	// sessions maps a session key to its executing run (one per lane).
	sessions map[string]string
}

type progressEntry struct {
	p        domain.Progress
	started  time.Time
	lastEmit time.Time
	emitted  bool
}

func newProgressBoard(now func() time.Time, emit func(domain.Event)) *progressBoard {
	return &progressBoard{now: now, emit: emit, runs: make(map[string]*progressEntry), sessions: make(map[string]string)}
}

// start registers a run that was just claimed.
func (b *progressBoard) start(run domain.Run) {
	now := b.now()
	b.mu.Lock()
	b.runs[run.ID] = &progressEntry{started: now, p: domain.Progress{RunID: run.ID, SessionKey: run.SessionKey, Phase: "waiting", StartedAt: now.UnixMilli()}}
	b.sessions[run.SessionKey] = run.ID
	b.mu.Unlock()
}

// end forgets a run.
func (b *progressBoard) end(id string) {
	b.mu.Lock()
	if e, ok := b.runs[id]; ok && b.sessions[e.p.SessionKey] == id {
		delete(b.sessions, e.p.SessionKey)
	}
	delete(b.runs, id)
	b.mu.Unlock()
}

// update changes a run's record with fn and publishes it unless one was
// published less than ProgressInterval ago.
func (b *progressBoard) update(id string, fn func(p *domain.Progress)) {
	now := b.now()
	b.mu.Lock()
	e, ok := b.runs[id]
	if !ok {
		b.mu.Unlock()
		return
	}
	fn(&e.p)
	e.p.ElapsedMs = now.Sub(e.started).Milliseconds()
	send := !e.emitted || now.Sub(e.lastEmit) >= ProgressInterval
	if send {
		e.emitted, e.lastEmit = true, now
	}
	p := e.p
	b.mu.Unlock()
	if send && b.emit != nil {
		b.emit(domain.Event{Kind: domain.EventProgress, SessionKey: p.SessionKey, Progress: &p, TS: now.UnixMilli()})
	}
}

// get returns the current record of a run executing here.
func (b *progressBoard) get(id string) (domain.Progress, bool) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.runs[id]
	if !ok {
		return domain.Progress{}, false
	}
	p := e.p
	p.ElapsedMs = now.Sub(e.started).Milliseconds()
	return p, true
}

// Progress returns the progress record of a run executing in this
// runtime, and false when it is not running here.
func (rt *Runtime) Progress(runID string) (domain.Progress, bool) {
	return rt.progress.get(runID)
}

// tailText keeps the last n characters of s.
func tailText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// SessionProgress returns the progress record of the run executing here
// on session key (a lane runs one at a time), and false when none is.
func (rt *Runtime) SessionProgress(key string) (domain.Progress, bool) {
	b := rt.progress
	b.mu.Lock()
	id, ok := b.sessions[key]
	b.mu.Unlock()
	if !ok {
		return domain.Progress{}, false
	}
	return b.get(id)
}
