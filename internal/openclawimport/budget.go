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
type planBudget struct {
	max  int64
	held atomic.Int64
	room chan struct{} // a token after held dropped; capacity 1
}

// planBudgetMessages is planBudget.max: four Updates' worth.
const planBudgetMessages = 4 * batchMessages

func newPlanBudget(max int) *planBudget {
	return &planBudget{max: int64(max), room: make(chan struct{}, 1)}
}

// wait returns once the held messages are within the budget, or ctx's
// error.
func (b *planBudget) wait(ctx context.Context) error {
	for b.held.Load() > b.max {
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
