package ratelimit

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestBucket(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := New(map[Scope]Limit{ScopeToken: {PerSecond: 10, Burst: 3}}, c.now)
	for i := range 3 {
		if err := l.Allow(ScopeToken, "a"); err != nil {
			t.Fatalf("request %d within the burst: %v", i, err)
		}
	}
	err := l.Allow(ScopeToken, "a")
	var ex *Exceeded
	if !errors.As(err, &ex) || ex.RetryAfter != 100*time.Millisecond {
		t.Fatalf("fourth request = %v, want exceeded, retry in 100ms", err)
	}
	for _, want := range []string{"rate limit exceeded", `token "a"`, "10 requests per second", "burst 3", "retry in 100 ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	c.add(100 * time.Millisecond)
	if err := l.Allow(ScopeToken, "a"); err != nil {
		t.Errorf("after the refill: %v", err)
	}
	if err := l.Allow(Scope("session"), "x"); err != nil {
		t.Errorf("an unlimited scope: %v", err)
	}
}

// TestOneTokenDoesNotStarveAnother: a token hammering the gateway empties
// only its own bucket; another token's requests all pass.
func TestOneTokenDoesNotStarveAnother(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := New(map[Scope]Limit{ScopeToken: {PerSecond: 5, Burst: 5}}, c.now)
	var wg sync.WaitGroup
	refused := make(chan int, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		n := 0
		for range 1000 {
			if l.Allow(ScopeToken, "greedy") != nil {
				n++
			}
		}
		refused <- n
	}()
	for i := range 5 {
		if err := l.Allow(ScopeToken, "polite"); err != nil {
			t.Errorf("polite request %d refused: %v", i, err)
		}
	}
	wg.Wait()
	if n := <-refused; n != 995 {
		t.Errorf("greedy token had %d of 1000 refused, want 995", n)
	}
}

func TestSetLimitsAndPrune(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := New(nil, c.now)
	if err := l.Allow(ScopeToken, "a"); err != nil {
		t.Fatalf("no limits: %v", err)
	}
	l.SetLimits(map[Scope]Limit{ScopeToken: {PerSecond: 1, Burst: 1}})
	for i := range maxBuckets + 10 {
		_ = l.Allow(ScopeToken, string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	if n := len(l.buckets); n > maxBuckets+10 {
		t.Errorf("%d buckets kept", n)
	}
	c.add(time.Hour)
	_ = l.Allow(ScopeToken, "new")
	l.mu.Lock()
	n := len(l.buckets)
	l.mu.Unlock()
	if n > maxBuckets {
		t.Errorf("%d buckets after a prune, want at most %d", n, maxBuckets)
	}
}
