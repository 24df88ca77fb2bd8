package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// TestOutboxReleasedAtCleanStop: a replica's worker takes three items,
// delivers the first and is stopped while it delivers the second. The
// items it did not finish go back at once: the other replica takes them
// now, not after the lease (4 × 5 s here); the delivered one stays
// delivered.
func TestOutboxReleasedAtCleanStop(t *testing.T) {
	s1, c1, _, c2 := joinTwo(t, 5*time.Second)
	err := s1.Update(t.Context(), func(tx domain.Tx) error {
		for _, k := range []string{"r1", "r2", "r3"} {
			if _, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: k, Kind: domain.OutboxDelivery, SessionKey: "agent:main:r",
				Payload: []byte(`{}`), Status: domain.OutboxPending, NextAttemptAt: 10, CreatedAt: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	blocked := make(chan struct{})
	deliver := outbox.DelivererFunc(func(ctx context.Context, it domain.OutboxItem) error {
		if it.IdempotencyKey == "r1" {
			return nil
		}
		close(blocked) // (only r2 gets here: the stop comes while it blocks)
		<-ctx.Done()
		return ctx.Err()
	})
	w, err := outbox.New(outbox.Config{Store: s1, Taker: c1, Interval: time.Hour, BatchSize: 10,
		Deliverers: map[domain.OutboxKind]outbox.Deliverer{domain.OutboxDelivery: deliver}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not reach the second item")
	}
	// Before the stop, the other replica sees nothing due.
	if got, err := c2.TakeOutbox(t.Context(), time.Now().UnixMilli(), 10); err != nil || len(got) != 0 {
		t.Fatalf("take while the first worker holds the items: %d items, %v, want none", len(got), err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := w.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c2.TakeOutbox(t.Context(), time.Now().UnixMilli(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, it := range got {
		keys = append(keys, it.IdempotencyKey)
	}
	if !slices.Equal(keys, []string{"r2", "r3"}) {
		t.Fatalf("taken by the other replica right after the stop: %v, want [r2 r3]", keys)
	}
	items, err := s1.ListOutbox(t.Context(), domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxDelivered}})
	if err != nil || len(items) != 1 || items[0].IdempotencyKey != "r1" {
		t.Fatalf("delivered items: %+v %v, want r1 only", items, err)
	}
}
