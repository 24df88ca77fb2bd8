package gateway

// Bounds of the fan-out's backlog of unclaimed runs: the last backlogRuns
// runs, at most backlogEvents events each (past it only a run's end is
// kept). Deltas are never kept: each carries the text so far, so the
// next one makes up for those missed. The window only has to cover the
// moment between Chat returning a run id and the claim.
const (
	backlogRuns   = 256
	backlogEvents = 16
)

// backlog keeps the events of recent runs until a connection claims one
// as its own (fanout.claimRun) or the run falls out of the window. It
// bridges the moment between a run starting and its starter learning its
// id. Guarded by fanout.mu.
type backlog struct {
	maxRuns, maxEvents int
	runs               map[string]*runBacklog
	order              []string // run ids, oldest first (a ring)
	next               int
}

type runBacklog struct {
	events []wireEvent
	ended  bool
}

func newBacklog(maxRuns, maxEvents int) backlog {
	return backlog{maxRuns: maxRuns, maxEvents: maxEvents, runs: map[string]*runBacklog{}, order: make([]string, maxRuns)}
}

// add records ev of its run, evicting the oldest run when the window is full.
func (b *backlog) add(ev wireEvent) {
	if ev.delta {
		return
	}
	rb := b.runs[ev.runID]
	if rb == nil {
		if old := b.order[b.next]; old != "" {
			delete(b.runs, old)
		}
		b.order[b.next] = ev.runID
		b.next = (b.next + 1) % b.maxRuns
		rb = &runBacklog{}
		b.runs[ev.runID] = rb
	}
	if len(rb.events) >= b.maxEvents && !ev.ended {
		return
	}
	rb.events = append(rb.events, ev)
	rb.ended = rb.ended || ev.ended
}

// take removes and returns a run's recorded events and whether it ended.
func (b *backlog) take(runID string) ([]wireEvent, bool) {
	rb := b.runs[runID]
	if rb == nil {
		return nil, false
	}
	// Its slot in order is freed when the ring comes round (run ids are
	// never reused).
	delete(b.runs, runID)
	return rb.events, rb.ended
}
