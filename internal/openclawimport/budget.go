package openclawimport

import (
	"context"
	"sync/atomic"
)

// planBudget bounds the messages that planning workers hold for the
// writer: planned, not yet taken into a group. The window of slots bounds
// sessions; this bounds their size, so a window of long transcripts does
// not hold hundreds of thousands of messages (and the window can be wide
// for short ones, whose groups are then large).
//
// Workers wait before they take a candidate, never while holding one, and
// the writer gives messages back as it takes plans (not at commit): when
// every worker waits, every taken candidate has been delivered, the writer
// takes them all and the budget empties. So it cannot deadlock, and one
// transcript larger than the budget still passes alone.
//
// Until the writes may begin (the source's integrity checks passed) the
// budget is larger, a head start: the checks and planning share the
// processors then, and whatever the workers plan meanwhile is work the
// writer, the import's critical path, does not wait for later. With the
// steady-state budget the workers stopped a fraction into the checks
// and a processor sat idle until they ended.
type planBudget struct {
	max  atomic.Int64
	held atomic.Int64
	room chan struct{} // a token after held dropped; capacity 1
	// steady is the bound once started was called.
	steady int64
}

const (
	// planBudgetMessages is the steady budget: four Updates' worth.
	planBudgetMessages = 4 * batchMessages
	// planHeadStartMessages is the budget before the writes begin: about
	// what the workers plan while the integrity check of a few hundred
	// megabytes runs.
	planHeadStartMessages = 8 * batchMessages
)

// newPlanBudget returns a budget of headStart messages until started is
// called, steady after.
func newPlanBudget(steady, headStart int) *planBudget {
	b := &planBudget{steady: int64(steady), room: make(chan struct{}, 1)}
	b.max.Store(int64(max(steady, headStart)))
	return b
}

// started lowers the budget to its steady bound: the writes have begun.
// Workers over it wait until the writer took enough.
func (b *planBudget) started() { b.max.Store(b.steady) }

// wait returns once the held messages are within the budget, or ctx's
// error.
func (b *planBudget) wait(ctx context.Context) error {
	for b.held.Load() > b.max.Load() {
		select {
		case <-b.room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// Pass the wake-up on: another worker may be waiting too.
	b.signal()
	return nil
}

// add counts n messages a worker planned.
func (b *planBudget) add(n int) { b.held.Add(int64(n)) }

// release gives back n messages the writer took.
func (b *planBudget) release(n int) {
	b.held.Add(-int64(n))
	b.signal()
}

func (b *planBudget) signal() {
	select {
	case b.room <- struct{}{}:
	default:
	}
}
