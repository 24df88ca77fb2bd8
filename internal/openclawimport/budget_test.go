package openclawimport

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestPlanBudget(t *testing.T) {
	b := newPlanBudget(10, 0)
	if err := b.wait(t.Context()); err != nil {
		t.Fatalf("wait on an empty budget: %v", err)
	}
	b.add(11)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait over the budget with a cancelled ctx: %v, want context.Canceled", err)
	}
	errc := make(chan error, 2)
	for range 2 {
		go func() { errc <- b.wait(t.Context()) }()
	}
	b.release(11)
	for range 2 {
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("wait after release: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a waiter was not woken by release")
		}
	}
}

// TestPlanBudgetHeadStart: before started the workers may hold the
// head start; after it, only the steady budget.
func TestPlanBudgetHeadStart(t *testing.T) {
	b := newPlanBudget(10, 30)
	b.add(25)
	if err := b.wait(t.Context()); err != nil {
		t.Fatalf("wait within the head start: %v", err)
	}
	b.started()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait over the steady budget after started: %v, want context.Canceled", err)
	}
	b.release(15)
	if err := b.wait(t.Context()); err != nil {
		t.Fatalf("wait within the steady budget: %v", err)
	}
}

// TestImportOverBudget imports with a budget smaller than every
// transcript and than a group: each session passes alone, nothing
// deadlocks, and the result is the same as with the default budget.
func TestImportOverBudget(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("testdata", "openclaw")
	want, err := Import(ctx, openStore(t), dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions()
	opts.planBudget = 1
	st := openStore(t)
	got, err := Import(ctx, st, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sessions != want.Sessions || got.Messages != want.Messages || got.Messages == 0 {
		t.Errorf("with a budget of 1 message: %d sessions, %d messages; want %d, %d", got.Sessions, got.Messages, want.Sessions, want.Messages)
	}
}
