package storetest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// gateWithin bounds every wait of the gate tests: a gate that should be
// free but is not fails the test instead of hanging it.
const gateWithin = 20 * time.Second

// testGate: a second holder of a name waits until the first releases; a
// different name does not wait; a waiter whose ctx ends gets ctx's error
// and holds nothing.
func testGate(t *testing.T, st domain.Store) {
	testGateExcludes(t, st, st)
}

// GateExcludes checks Gate across a and b, which may be one store or two
// stores on one database (two replicas): b's holder of a name a holds
// waits until a's releases, b takes another name at once, and b's waiter
// whose ctx ends returns ctx's error. Backends whose stores share a
// database call it with two stores from their own tests.
func GateExcludes(t *testing.T, a, b domain.Store) {
	testGateExcludes(t, a, b)
}

func testGateExcludes(t *testing.T, a, b domain.Store) {
	t.Helper()
	ctx := ctxT(t)
	releaseA, err := a.Gate(ctx, "label\x00main\x00x")
	if err != nil {
		t.Fatalf("Gate: %v", err)
	}

	// A different name is free.
	other := make(chan error, 1)
	go func() {
		rel, err := b.Gate(ctx, "label\x00main\x00y")
		if err == nil {
			rel()
		}
		other <- err
	}()
	select {
	case err := <-other:
		if err != nil {
			t.Fatalf("Gate of another name: %v", err)
		}
	case <-time.After(gateWithin):
		t.Fatal("Gate of another name waited for the held one")
	}

	// A waiter whose ctx ends gives up with ctx's error.
	wctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		rel, err := b.Gate(wctx, "label\x00main\x00x")
		if err == nil {
			rel()
		}
		gaveUp <- err
	}()
	cancel()
	select {
	case err := <-gaveUp:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Gate with its ctx ended while the name is held = %v, want context.Canceled", err)
		}
	case <-time.After(gateWithin):
		t.Fatal("Gate did not return when its ctx ended")
	}
	dctx, dcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer dcancel()
	if rel, err := b.Gate(dctx, "label\x00main\x00x"); !errors.Is(err, context.DeadlineExceeded) {
		if err == nil {
			rel()
		}
		t.Fatalf("Gate with a deadline while the name is held = %v, want context.DeadlineExceeded", err)
	}

	// The second holder gets in only after the first releases: it marks
	// the step it saw, and the first's release comes after step 1.
	// (Atomic: between two stores the gate orders the two goroutines
	// through the database, which the race detector cannot see.)
	var step atomic.Int32
	got := make(chan int, 1)
	go func() {
		rel, err := b.Gate(ctx, "label\x00main\x00x")
		if err != nil {
			got <- -1
			return
		}
		got <- int(step.Load())
		rel()
	}()
	select {
	case s := <-got:
		t.Fatalf("a second holder got in while the first held the gate (step %d)", s)
	case <-time.After(100 * time.Millisecond):
		// (No proof of waiting, only a chance to catch a gate that does
		// not hold; the ordering below is the proof.)
	}
	step.Store(1)
	releaseA()
	select {
	case s := <-got:
		if s != 1 {
			t.Fatalf("the second holder saw step %d, want 1 (it got in before the release)", s)
		}
	case <-time.After(gateWithin):
		t.Fatal("the second holder never got the gate after the release")
	}

	// Released for good: the name is free again.
	rel, err := a.Gate(ctx, "label\x00main\x00x")
	if err != nil {
		t.Fatalf("Gate after every holder left: %v", err)
	}
	rel()
}
