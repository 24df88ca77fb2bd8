package channels

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Counters are one account's activity since the gateway started: the
// times and counts of its AccountStatus. Every adapter keeps one per
// account; it is safe for concurrent use.
type Counters struct {
	startAt, inAt, outAt                 atomic.Int64
	received, delivered, retried, failed atomic.Uint64
}

// Started records that the account began receiving.
func (c *Counters) Started(now time.Time) { c.startAt.Store(now.UnixMilli()) }

// Received counts an inbound message that became a turn.
func (c *Counters) Received(now time.Time) {
	c.received.Add(1)
	c.inAt.Store(now.UnixMilli())
}

// Retry counts a send the provider turned back that is tried again.
func (c *Counters) Retry() { c.retried.Add(1) }

// Sent counts the outcome of an Adapter.Send as the outbox will read it
// (nil delivered, outbox.ErrPermanent failed, anything else retried) and
// returns err.
func (c *Counters) Sent(err error, now time.Time) error {
	switch {
	case err == nil:
		c.delivered.Add(1)
		c.outAt.Store(now.UnixMilli())
	case errors.Is(err, outbox.ErrPermanent):
		c.failed.Add(1)
	default:
		c.retried.Add(1)
	}
	return err
}

// Fill copies the times and counts into s.
func (c *Counters) Fill(s *AccountStatus) {
	s.LastStartAt, s.LastInboundAt, s.LastOutboundAt = c.startAt.Load(), c.inAt.Load(), c.outAt.Load()
	s.Received, s.Delivered, s.Retried, s.Failed = c.received.Load(), c.delivered.Load(), c.retried.Load(), c.failed.Load()
}
