package testkit

import (
	"context"
	"os"
	"testing"
	"time"
)

// pollEvery is how often WaitFor re-checks: conditions here are read
// from another process (a file it appends to, an HTTP answer), which
// sends no event to wait on.
const pollEvery = 20 * time.Millisecond

// WaitFor polls cond until it holds, and fails the test naming what it
// waited for when within passes first.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(pollEvery)
	}
}

// WaitForFile waits until path exists and is not empty, and returns its
// contents.
func WaitForFile(t testing.TB, within time.Duration, path string) []byte {
	t.Helper()
	var b []byte
	WaitFor(t, within, "file "+path, func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil && len(b) > 0
	})
	return b
}

// Receive returns the next value from ch, failing the test when none
// comes within the deadline or ch is closed.
func Receive[T any](t testing.TB, within time.Duration, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: channel closed", what)
		}
		return v
	case <-timer.C:
		t.Fatalf("timed out after %s waiting for %s", within, what)
	}
	var zero T
	return zero
}

// Deadline is a context that ends after d or when the test ends, so
// nothing a test starts waits without a bound.
func Deadline(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
