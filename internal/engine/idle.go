package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// idlePoll is how often Idle looks again when no event arrived: due outbox
// items are picked up by the maintenance loop, which publishes nothing
// until it delivers.
const idlePoll = 50 * time.Millisecond

// Idle waits until the engine has nothing left to do now: no run is queued
// or running (in the store or in this process; with OwnWorkOnly, of this
// process's own work) and no outbox item is due.
// Items due later (an archive in an hour, the next retry of a failed
// webhook) do not count. In-process commands call it before they close the
// engine, so the work they started — reply-back turns, announces, a child
// and its announce — settles first. It returns ctx's error when ctx ends
// first.
//
// Work moves between runs and outbox items in single transactions, but
// Idle reads them with separate queries; it therefore only trusts a check
// during which no engine event arrived. Every step that could hide work
// from one query (a run ending, an item being delivered) publishes an
// event before its run leaves the runtime's active set, so a quiet check
// that finds nothing is a true idle.
func (e *Engine) Idle(ctx context.Context) error {
	events, stop := e.Subscribe(1024)
	defer stop()
	tick := time.NewTicker(idlePoll)
	defer tick.Stop()
	for {
		for drained := false; !drained; {
			select {
			case <-events:
			default:
				drained = true
			}
		}
		busy, err := e.busy(ctx)
		if err != nil {
			return fmt.Errorf("engine: idle: %w", err)
		}
		if !busy && len(events) == 0 {
			return nil
		}
		if !busy {
			continue // something moved during the check: look again
		}
		if !nextChange(ctx, events, tick.C) {
			return ctx.Err()
		}
	}
}

// busy reports whether work is due or in flight. The order matters (see
// Idle): outbox first, then the store's runs, then the runtime's own view.
func (e *Engine) busy(ctx context.Context) (bool, error) {
	due, err := e.store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}, DueBefore: e.nowMs(), Limit: 1})
	if err != nil {
		return false, err
	}
	if len(due) > 0 {
		return true, nil
	}
	// The store's runs, then the runtime's view; with OwnWorkOnly only the
	// runtime's own work counts (runs left queued for the gateway do not).
	return e.rt.Busy(ctx)
}

// nextChange waits for an event that may have moved work, the tick or
// ctx's end (false). Streamed deltas move no work — a streaming run sends
// many — so they do not wake Idle into another round of store queries.
func nextChange(ctx context.Context, events <-chan domain.Event, tick <-chan time.Time) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case ev := <-events:
			if ev.Kind != domain.EventDelta {
				return true
			}
		case <-tick:
			return true
		}
	}
}
