// Package ratelimit is switchboard's one rate limiter: token buckets
// keyed by a scope and the id of who is asking within it. The gateway
// limits each credential (ScopeToken) so one token cannot starve the
// others; further scopes (a session, an agent) are further keys of the
// same limiter with their own Limit.
package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Scope names what a bucket counts.
type Scope string

// ScopeToken counts the requests of one gateway credential (its name).
const ScopeToken Scope = "token"

// Limit is a bucket's rate and size: PerSecond requests a second on
// average, at most Burst at once. A zero PerSecond means no limit.
type Limit struct {
	PerSecond float64
	Burst     int
}

// Exceeded is the refusal of a request over its limit. Its message names
// the scope, the id, the limit and when to retry.
type Exceeded struct {
	Scope      Scope
	ID         string
	Limit      Limit
	RetryAfter time.Duration
}

func (e *Exceeded) Error() string {
	return fmt.Sprintf("rate limit exceeded: %s %q may make %g requests per second (burst %d); retry in %d ms",
		e.Scope, e.ID, e.Limit.PerSecond, e.Limit.Burst, max(1, e.RetryAfter.Milliseconds()))
}

type key struct {
	scope Scope
	id    string
}

type bucket struct {
	tokens float64
	at     time.Time
}

// Limiter holds the buckets. It is safe for concurrent use.
type Limiter struct {
	now func() time.Time

	mu      sync.Mutex
	limits  map[Scope]Limit
	buckets map[key]*bucket
}

// New returns a Limiter with the limit of each scope (a scope without
// one is not limited). now is its clock (nil: time.Now).
func New(limits map[Scope]Limit, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	l := &Limiter{now: now, buckets: map[key]*bucket{}}
	l.SetLimits(limits)
	return l
}

// SetLimits replaces the limits (a configuration reload); buckets keep
// what they hold, capped at their new burst.
func (l *Limiter) SetLimits(limits map[Scope]Limit) {
	m := make(map[Scope]Limit, len(limits))
	for s, lim := range limits {
		if lim.PerSecond > 0 {
			m[s] = Limit{PerSecond: lim.PerSecond, Burst: max(1, lim.Burst)}
		}
	}
	l.mu.Lock()
	l.limits = m
	l.mu.Unlock()
}

// Allow takes one request from id's bucket in scope, or returns an
// *Exceeded when it is empty.
func (l *Limiter) Allow(scope Scope, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.limits[scope]
	if !ok {
		return nil
	}
	now := l.now()
	k := key{scope, id}
	b := l.buckets[k]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.pruneLocked(now)
		}
		b = &bucket{tokens: float64(lim.Burst), at: now}
		l.buckets[k] = b
	}
	b.refill(lim, now)
	if b.tokens >= 1 {
		b.tokens--
		return nil
	}
	wait := time.Duration(math.Ceil((1 - b.tokens) / lim.PerSecond * float64(time.Second)))
	return &Exceeded{Scope: scope, ID: id, Limit: lim, RetryAfter: wait}
}

func (b *bucket) refill(lim Limit, now time.Time) {
	if dt := now.Sub(b.at).Seconds(); dt > 0 {
		b.tokens = math.Min(float64(lim.Burst), b.tokens+dt*lim.PerSecond)
	}
	b.at = now
}

// maxBuckets bounds the buckets kept; past it full buckets (which a new
// one would equal) are dropped.
const maxBuckets = 4096

func (l *Limiter) pruneLocked(now time.Time) {
	for k, b := range l.buckets {
		lim, ok := l.limits[k.scope]
		if !ok {
			delete(l.buckets, k)
			continue
		}
		b.refill(lim, now)
		if b.tokens >= float64(lim.Burst) {
			delete(l.buckets, k)
		}
	}
}

// Scopes of the work started on sessions (gateway.limits.rateLimit.session
// and .agent): every run a chat, send or spawn starts takes one from the
// bucket of each session and each agent it involves.
const (
	ScopeSession Scope = "session"
	ScopeAgent   Scope = "agent"
)
