package discord

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/disgoorg/disgo/rest"
)

// maxRateLimitWait is the longest wait a send sits out inside one
// delivery attempt; a longer Retry-After ends the attempt with a
// RetryAfterError so the outbox schedules the next one instead of holding
// its worker.
const maxRateLimitWait = 30 * time.Second

// rateLimiter is the REST client's rate limiter: one lock per route
// bucket (method + route + major parameter, as Discord scopes them), the
// bucket's remaining count and reset from X-RateLimit-Remaining and
// X-RateLimit-Reset-After, and a 429's Retry-After (seconds, fractional
// allowed) applied to its bucket, or to every bucket when Discord says the
// limit is global. It starts no goroutine.
type rateLimiter struct {
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	global  time.Time
	buckets map[string]*bucket
	// limited records the last 429 seen, for the status surfaces.
	limited int
}

type bucket struct {
	lock      chan struct{} // holds one token: the bucket is free
	remaining int
	reset     time.Time
}

var _ rest.RateLimiter = (*rateLimiter)(nil)

func newRateLimiter(now func() time.Time, sleep func(context.Context, time.Duration) error) *rateLimiter {
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	return &rateLimiter{now: now, sleep: sleep, buckets: map[string]*bucket{}}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// MaxRetries is how often one call retries after a 429 before it fails.
func (l *rateLimiter) MaxRetries() int { return 3 }

// Close has nothing to stop.
func (l *rateLimiter) Close(context.Context) {}

// Reset forgets every bucket.
func (l *rateLimiter) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.global, l.buckets = time.Time{}, map[string]*bucket{}
}

// RetryAfterError ends a send whose rate limit outlasts one attempt; After
// is Discord's wait.
type RetryAfterError struct{ After time.Duration }

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("discord: rate limited, retry after %s", e.After)
}

func bucketKey(e *rest.CompiledEndpoint) string {
	return e.Endpoint.Method + " " + e.Endpoint.Route + " " + e.MajorParams
}

func (l *rateLimiter) bucket(e *rest.CompiledEndpoint) *bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := bucketKey(e)
	b, ok := l.buckets[k]
	if !ok {
		if len(l.buckets) > 1024 {
			l.pruneLocked()
		}
		b = &bucket{lock: make(chan struct{}, 1), remaining: 1}
		b.lock <- struct{}{}
		l.buckets[k] = b
	}
	return b
}

// pruneLocked drops free buckets whose window has passed.
func (l *rateLimiter) pruneLocked() {
	now := l.now()
	for k, b := range l.buckets {
		select {
		case <-b.lock:
			if b.reset.Before(now) {
				delete(l.buckets, k)
			}
			b.lock <- struct{}{}
		default:
		}
	}
}

// WaitBucket takes the endpoint's bucket and waits out its limit (and a
// global one). On an error the bucket is free again.
func (l *rateLimiter) WaitBucket(ctx context.Context, e *rest.CompiledEndpoint) error {
	b := l.bucket(e)
	select {
	case <-b.lock:
	case <-ctx.Done():
		return ctx.Err()
	}
	l.mu.Lock()
	now := l.now()
	until := l.global
	if b.remaining <= 0 && b.reset.After(until) {
		until = b.reset
	}
	l.mu.Unlock()
	if wait := until.Sub(now); wait > 0 {
		if wait > maxRateLimitWait {
			b.lock <- struct{}{}
			return &RetryAfterError{After: wait}
		}
		if err := l.sleep(ctx, wait); err != nil {
			b.lock <- struct{}{}
			return err
		}
	}
	return nil
}

// UnlockBucket records the response's limits and frees the bucket.
func (l *rateLimiter) UnlockBucket(e *rest.CompiledEndpoint, rs *http.Response) error {
	b := l.bucket(e)
	defer func() { b.lock <- struct{}{} }()
	if rs == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	h := rs.Header
	if rs.StatusCode == http.StatusTooManyRequests {
		l.limited++
		after := parseSeconds(h.Get("Retry-After"))
		if after <= 0 {
			after = parseSeconds(h.Get("X-RateLimit-Reset-After"))
		}
		if after <= 0 {
			after = time.Second
		}
		if h.Get("X-RateLimit-Global") != "" || h.Get("X-RateLimit-Scope") == "global" {
			l.global = now.Add(after)
		} else {
			b.remaining, b.reset = 0, now.Add(after)
		}
		return nil
	}
	if v := h.Get("X-RateLimit-Remaining"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			b.remaining = n
		}
	} else {
		b.remaining = 1
	}
	if d := parseSeconds(h.Get("X-RateLimit-Reset-After")); d > 0 {
		b.reset = now.Add(d)
	}
	return nil
}

// limitedCount is how many 429s the limiter has seen.
func (l *rateLimiter) limitedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limited
}

// parseSeconds reads a header holding seconds ("2", "0.25"); 0 when
// absent or malformed, capped at an hour.
func parseSeconds(v string) time.Duration {
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f != f {
		return 0
	}
	f = min(f, 3600)
	return time.Duration(f * float64(time.Second))
}
