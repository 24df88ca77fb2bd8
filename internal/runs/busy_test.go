package runs

import (
	"context"
	"testing"
)

// Busy, which the engine's idle wait reads: a runtime alone on its store
// is busy while any run is queued or running in the store, even one it
// does not carry out (a holding runtime's); a runtime that carries out
// only its own work is busy only with that. Both are quiet once the work
// ended.
func TestBusyCountsTheWorkTheRuntimeAnswersFor(t *testing.T) {
	ctx := context.Background()
	busy := func(rt *Runtime) bool {
		t.Helper()
		b, err := rt.Busy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	e := newEnv(t, nil)
	if busy(e.rt) {
		t.Fatal("a fresh runtime is busy")
	}
	r := e.submit("agent:main:a", "block", nil)
	if !busy(e.rt) {
		t.Fatal("a runtime with a run in its model call is not busy")
	}
	close(e.model.release)
	e.wait(r.ID)
	waitUntil(t, func() bool { return !busy(e.rt) })

	// A holding runtime's queued run keeps an unscoped runtime on the
	// same store busy, not one that carries out only its own work.
	held := newEnv(t, func(o *Options) { o.Hold = true })
	queued := held.submit("agent:main:h", "x", nil)
	plain, err := New(Options{Store: held.st, Models: fakeModels{held.model}, Hooks: held.hooks, Hold: true})
	if err != nil {
		t.Fatal(err)
	}
	own := newEnv(t, func(o *Options) { o.Store = held.st; o.OwnWorkOnly = true })
	if !busy(plain) {
		t.Fatalf("an unscoped runtime is not busy with run %s queued in its store", queued.ID)
	}
	if busy(own.rt) {
		t.Fatal("a runtime of its own work only is busy with another process's queued run")
	}
	mine := own.submit("agent:main:o", "block", nil)
	if !busy(own.rt) {
		t.Fatal("a runtime of its own work only is not busy with its own running run")
	}
	close(own.model.release)
	own.wait(mine.ID)
	waitUntil(t, func() bool { return !busy(own.rt) })
}
