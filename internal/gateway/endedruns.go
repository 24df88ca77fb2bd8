package gateway

import (
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// endedRuns remembers the last runs a connection's own `agent` calls saw
// end, so its `agent.wait` for one of them (the usual `agent` then
// `agent.wait` round trip) is answered without reading the run back from
// the store: by then the run's executor is done and the wait would read
// the row back on every round trip.
//
// The answer is the one a read would give: an ended run's row never
// changes again (runs are never deleted, docs/design.md#runs-lanes-and-waits), the entry was what the
// engine's wait returned to this same connection's principal, and the
// `agent` call already told the client all of it. OpenClaw's agent.wait
// answers from its cache of ended runs the same way.
type endedRuns struct {
	mu   sync.Mutex
	runs map[string]domain.Run
	// order is a ring of the ids in runs, oldest at next.
	order [endedRunsKeep]string
	next  int
}

// endedRunsKeep bounds the runs one connection remembers.
const endedRunsKeep = 16

// add remembers r if it has ended. Only what waitPayload reads is kept.
func (e *endedRuns) add(r domain.Run) {
	if !domain.RunTerminal(r.Status) || r.ID == "" {
		return
	}
	kept := domain.Run{ID: r.ID, Status: r.Status, Error: r.Error, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.runs == nil {
		e.runs = make(map[string]domain.Run, endedRunsKeep)
	}
	if _, ok := e.runs[r.ID]; ok {
		e.runs[r.ID] = kept
		return
	}
	if old := e.order[e.next]; old != "" {
		delete(e.runs, old)
	}
	e.order[e.next] = r.ID
	e.next = (e.next + 1) % endedRunsKeep
	e.runs[r.ID] = kept
}

// get returns a remembered ended run.
func (e *endedRuns) get(runID string) (domain.Run, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.runs[runID]
	return r, ok
}
