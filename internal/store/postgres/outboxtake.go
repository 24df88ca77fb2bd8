package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

var _ outbox.Taker = (*Cluster)(nil)

// outboxLeaseFactor: a replica's lease on outbox items it took lasts this many replica leases, so
// a worker has time to go through a batch before its items become due
// for another replica.
const outboxLeaseFactor = 4

// TakeOutbox takes up to limit pending items due by dueBefore (Unix ms)
// for this replica's outbox worker: their rows are locked with FOR UPDATE
// SKIP LOCKED (a worker of another replica takes other items) and their
// next attempt is pushed past the lease, so no other worker picks
// them up while this one delivers. When this replica dies mid-delivery
// the items fall due again after the lease, and another replica
// delivers them (with the same idempotency key).
func (c *Cluster) TakeOutbox(ctx context.Context, dueBefore int64, limit int) ([]domain.OutboxItem, error) {
	until := time.UnixMilli(dueBefore).Add(outboxLeaseFactor * c.lease).UnixMilli()
	query := `UPDATE outbox SET next_attempt_at = $3 WHERE id IN (
		SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= $1
		ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING id, ` + outboxColumns
	items, err := queryAll(ctx, c.s, "take outbox", query, []any{dueBefore, limit, until}, scanOutbox)
	if err != nil {
		return nil, err
	}
	// The worker goes through them oldest first; it records each attempt
	// with the item as returned (its next attempt then set by the outcome).
	slices.SortFunc(items, func(a, b domain.OutboxItem) int { return cmp.Compare(a.ID, b.ID) })
	return items, nil
}

var _ outbox.Releaser = (*Cluster)(nil)

// ReleaseOutbox gives back items this replica's worker took and did
// not attempt (it is stopping cleanly): they become due at dueAt (Unix
// ms) for any replica, instead of after the lease. An item whose
// next attempt is no longer the lease's (an attempt was recorded, or
// the lease expired and another replica took it) is left alone.
func (c *Cluster) ReleaseOutbox(ctx context.Context, items []domain.OutboxItem, dueAt int64) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]int64, len(items))
	until := make([]int64, len(items))
	for i, it := range items {
		ids[i], until[i] = it.ID, it.NextAttemptAt
	}
	_, err := c.s.pool.Exec(ctx, `UPDATE outbox o SET next_attempt_at = $3
		FROM unnest($1::bigint[], $2::bigint[]) AS c(id, until)
		WHERE o.id = c.id AND o.status = 'pending' AND o.next_attempt_at = c.until`, ids, until, dueAt)
	if err != nil {
		return fmt.Errorf("replicas: release taken outbox items: %w", err)
	}
	return nil
}
