package channels

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Counters hold one account's run-time state for its AccountStatus: what
// it received and delivered, whether it runs and reaches its provider,
// and its last error. Every adapter keeps one per account; adapters
// update them and Status reads them. They are safe for concurrent use.
type Counters struct {
	running, connected                   atomic.Bool
	startAt, inAt, outAt                 atomic.Int64
	received, delivered, retried, failed atomic.Uint64

	mu        sync.Mutex
	lastError string
}

// Started records that the account began receiving.
func (c *Counters) Started(now time.Time) { c.startAt.Store(now.UnixMilli()) }

// SetRunning records whether receiving runs.
func (c *Counters) SetRunning(v bool) { c.running.Store(v) }

// SetConnected records whether the provider answered the last call; a
// connection clears the last error.
func (c *Counters) SetConnected(v bool) {
	c.connected.Store(v)
	if v {
		c.SetError(nil)
	}
}

// Connected reports the last SetConnected.
func (c *Counters) Connected() bool { return c.connected.Load() }

// SetError records the last failure (nil clears it).
func (c *Counters) SetError(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.lastError = ""
		return
	}
	c.lastError = err.Error()
}

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

// Fill copies the counters into s.
func (c *Counters) Fill(s *AccountStatus) {
	c.mu.Lock()
	s.LastError = c.lastError
	c.mu.Unlock()
	s.Running, s.Connected = c.running.Load(), c.connected.Load()
	s.LastStartAt, s.LastInboundAt, s.LastOutboundAt = c.startAt.Load(), c.inAt.Load(), c.outAt.Load()
	s.Received, s.Delivered, s.Retried, s.Failed = c.received.Load(), c.delivered.Load(), c.retried.Load(), c.failed.Load()
}
