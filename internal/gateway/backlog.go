package gateway

// Bounds of the fan-out's backlog of unclaimed runs: the last backlogRuns
// runs, at most backlogEvents events each (past it only a run's end is
// kept), and at most backlogBytes of payloads in all (the oldest runs go
// first: events carry whole messages, and runs started over HTTP are
// never claimed, so the counts alone would let a caller pin memory
// without bound). Deltas are never kept: each carries the text so far,
// so the next one makes up for those missed. The window only has to cover
// the moment between Chat returning a run id and the claim.
const (
	backlogRuns   = 256
	backlogEvents = 16
	backlogBytes  = 16 << 20
)

// backlog keeps the events of recent runs until a connection claims one
// as its own (fanout.claimRun) or the run falls out of the window. It
// bridges the moment between a run starting and its starter learning its
// id. Guarded by fanout.mu.
type backlog struct {
	maxRuns, maxEvents, maxBytes int
	runs                         map[string]*runBacklog
	order                        []string // run ids, oldest first (a ring)
	next                         int
	bytes                        int // payload bytes held, the sum of runs' bytes
}

type runBacklog struct {
	events []wireEvent
	ended  bool
	bytes  int
}

func newBacklog(maxRuns, maxEvents, maxBytes int) backlog {
	return backlog{maxRuns: maxRuns, maxEvents: maxEvents, maxBytes: maxBytes, runs: map[string]*runBacklog{}, order: make([]string, maxRuns)}
}

// drop forgets run id, keeping bytes true.
func (b *backlog) drop(id string) {
	if rb := b.runs[id]; rb != nil {
		b.bytes -= rb.bytes
		delete(b.runs, id)
	}
}

// makeRoom evicts the oldest runs other than keep until n more bytes fit.
func (b *backlog) makeRoom(n int, keep string) {
	for i := 0; i < b.maxRuns && b.bytes+n > b.maxBytes; i++ {
		if id := b.order[(b.next+i)%b.maxRuns]; id != keep {
			b.drop(id)
		}
	}
}

// add records ev of its run, evicting the oldest run when the window is full.
func (b *backlog) add(ev wireEvent) {
	if ev.delta {
		return
	}
	rb := b.runs[ev.runID]
	if rb == nil {
		if old := b.order[b.next]; old != "" {
			b.drop(old)
		}
		b.order[b.next] = ev.runID
		b.next = (b.next + 1) % b.maxRuns
		rb = &runBacklog{}
		b.runs[ev.runID] = rb
	}
	if len(rb.events) >= b.maxEvents && !ev.ended {
		return
	}
	n := len(ev.payload)
	if b.makeRoom(n, ev.runID); b.bytes+n > b.maxBytes && !ev.ended {
		return
	}
	rb.events = append(rb.events, ev)
	rb.bytes += n
	b.bytes += n
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
	b.drop(runID)
	return rb.events, rb.ended
}
