package growstack

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGrowTakesTheRoomUpFront checks that a goroutine that called Grow
// holds a stack of at least Frame bytes, where one that did not holds less.
func TestGrowTakesTheRoomUpFront(t *testing.T) {
	// A collection may shrink a parked goroutine's stack; none runs here.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	without := parkedStack(t, func() {})
	with := parkedStack(t, Grow)
	if with-without < Frame {
		t.Fatalf("stack in use grew by %d bytes with Grow, want at least %d (without: %d)", with-without, Frame, without)
	}
}

// parkedStack reports the stack in use while a goroutine that ran before
// is parked.
func parkedStack(t *testing.T, before func()) uint64 {
	t.Helper()
	ready, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		before()
		close(ready)
		<-release
	}()
	<-ready
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	close(release)
	<-done
	return m.StackInuse
}
