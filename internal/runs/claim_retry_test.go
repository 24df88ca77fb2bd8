package runs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// claimThroughFailingStore queues a run with a holding runtime, then
// starts a runtime whose store refuses its first n writes with err; the
// first of them is the queued run's claim. It returns the run once ended.
func claimThroughFailingStore(t *testing.T, err error, n int32) (domain.Run, *failingStore, *env) {
	t.Helper()
	held := newEnv(t, func(o *Options) { o.Hold = true })
	queued := held.submit("agent:main:c", "claim me", nil)
	if queued.Status != domain.RunQueued {
		t.Fatalf("held run = %s, want queued", queued.Status)
	}
	fs := &failingStore{Store: held.st, err: err}
	fs.n.Store(n)
	rt, nerr := New(Options{Store: fs, Models: fakeModels{held.model}, Hooks: held.hooks, MaxSteps: 5})
	if nerr != nil {
		t.Fatal(nerr)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	got, werr := rt.Wait(context.Background(), queued.ID, 10*time.Second)
	if werr != nil || !domain.RunTerminal(got.Status) {
		t.Fatalf("run after a failing claim = %s, %v; want it ended", got.Status, werr)
	}
	return got, fs, held
}

// A claim the store cannot write for a while (full disk) is tried again
// until it commits (docs/reliability.md, "Full disk when a run ends"):
// the run then runs once, its message stored once.
func TestClaimRetriedWhileStoreUnavailable(t *testing.T) {
	got, fs, held := claimThroughFailingStore(t, domain.Errorf(domain.CodeUnavailable, "disk full"), 2)
	if got.Status != domain.RunOK || got.Reply != "echo: claim me" {
		t.Fatalf("run = %s %q %q, want ok once the store writes again", got.Status, got.Reply, got.Error)
	}
	if fs.refused.Load() != 2 {
		t.Fatalf("refused writes = %d, want 2 (the claim, twice)", fs.refused.Load())
	}
	if n := countRole(t, held.st, "agent:main:c", got.ID, domain.RoleUser); n != 1 {
		t.Fatalf("the run's message stored %d times, want once", n)
	}
}

// A claim that fails for a reason retrying cannot fix ends the run with
// that failure instead of leaving it queued forever.
func TestClaimPermanentFailureEndsTheRun(t *testing.T) {
	got, fs, _ := claimThroughFailingStore(t, errors.New("constraint failed"), 1)
	if got.Status != domain.RunError || !strings.Contains(got.Error, "constraint failed") {
		t.Fatalf("run = %s %q, want an error naming the failed claim", got.Status, got.Error)
	}
	if fs.refused.Load() != 1 {
		t.Fatalf("refused writes = %d, want 1", fs.refused.Load())
	}
}
