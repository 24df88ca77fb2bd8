package engine

import (
	"context"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

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
