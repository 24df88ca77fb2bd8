package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// outboxColumns are the outbox columns after id.
const outboxColumns = `idempotency_key, kind, session_key, run_id, channel, to_addr, payload,
	status, attempts, last_error, next_attempt_at, created_at, delivered_at`

const outboxColumnCount = 13

func outboxArgs(o domain.OutboxItem) ([]any, error) {
	if len(o.Payload) > 0 && !json.Valid(o.Payload) {
		return nil, domain.Invalid("outbox %q: payload is not valid JSON", o.IdempotencyKey)
	}
	return []any{
		o.IdempotencyKey, string(o.Kind), o.SessionKey, o.RunID, pgText(o.Channel), pgText(o.To), rawOrNull(o.Payload),
		string(o.Status), o.Attempts, pgText(o.LastError), o.NextAttemptAt, o.CreatedAt, o.DeliveredAt,
	}, nil
}

func scanOutbox(r pgx.Row) (domain.OutboxItem, error) {
	var o domain.OutboxItem
	var payload *string
	err := r.Scan(&o.ID,
		&o.IdempotencyKey, &o.Kind, &o.SessionKey, &o.RunID, &o.Channel, &o.To, &payload,
		&o.Status, &o.Attempts, &o.LastError, &o.NextAttemptAt, &o.CreatedAt, &o.DeliveredAt)
	if payload != nil {
		o.Payload = []byte(*payload)
	}
	return o, err
}

var (
	insertOutbox = `INSERT INTO outbox (` + outboxColumns + `) VALUES (` + numbered(1, outboxColumnCount) + `)
	ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`
	// updateOutbox refuses, without raising an error, to give the row an
	// idempotency key another row holds (see updateRun).
	updateOutbox = `UPDATE outbox SET (` + outboxColumns + `) = (` + numbered(1, outboxColumnCount) + `) WHERE id = $14
	AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.idempotency_key = $1 AND o.id <> $14)`
)

// EnqueueOutbox inserts item with a new ID unless a row with its
// IdempotencyKey exists, which is returned instead (created=false). An
// empty Status is stored as pending. Across processes, a second insert of
// one key waits for the first transaction, then finds its row.
func (t *tx) EnqueueOutbox(item domain.OutboxItem) (domain.OutboxItem, bool, error) {
	if err := t.check(); err != nil {
		return domain.OutboxItem{}, false, err
	}
	if item.IdempotencyKey == "" {
		return domain.OutboxItem{}, false, domain.Invalid("enqueue outbox: idempotencyKey is required")
	}
	if item.Status == "" {
		item.Status = domain.OutboxPending
	}
	args, err := outboxArgs(item)
	if err != nil {
		return domain.OutboxItem{}, false, err
	}
	err = t.queryRow(insertOutbox, args...).Scan(&item.ID)
	if err == nil {
		return item, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return domain.OutboxItem{}, false, fmt.Errorf("enqueue outbox %q: %w", item.IdempotencyKey, err)
	}
	existing, err := scanOutbox(t.queryRow(`SELECT id, `+outboxColumns+` FROM outbox WHERE idempotency_key = $1`, item.IdempotencyKey))
	if err != nil {
		return domain.OutboxItem{}, false, fmt.Errorf("enqueue outbox %q: %w", item.IdempotencyKey, err)
	}
	return existing, false, nil
}

// PutOutbox replaces the row with item.ID, or returns domain.ErrNotFound.
func (t *tx) PutOutbox(item domain.OutboxItem) error {
	if err := t.check(); err != nil {
		return err
	}
	args, err := outboxArgs(item)
	if err != nil {
		return err
	}
	tag, err := t.exec(updateOutbox, append(args, item.ID)...)
	if err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("put outbox %d: idempotency key %q belongs to another row: %w", item.ID, item.IdempotencyKey, domain.ErrConflict)
		}
		return fmt.Errorf("put outbox %d: %w", item.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var exists bool
	if err := t.queryRow(`SELECT EXISTS (SELECT 1 FROM outbox WHERE id = $1)`, item.ID).Scan(&exists); err != nil {
		return fmt.Errorf("put outbox %d: %w", item.ID, err)
	}
	if exists {
		return fmt.Errorf("put outbox %d: idempotency key %q belongs to another row: %w", item.ID, item.IdempotencyKey, domain.ErrConflict)
	}
	return fmt.Errorf("put outbox %d: %w", item.ID, domain.ErrNotFound)
}

// ListOutbox returns the rows matching q, oldest (lowest ID) first.
func (s *Store) ListOutbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error) {
	if q.Limit < 0 {
		return nil, domain.Invalid("outbox query: limit must be >= 0 (got %d)", q.Limit)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("list outbox: %w", domain.ErrClosed)
	}
	var where []string
	var a args
	if len(q.Statuses) > 0 {
		where = append(where, `status = ANY(`+a.add(strs(q.Statuses))+`::text[])`)
	}
	if q.SessionKey != "" {
		where = append(where, `session_key = `+a.add(q.SessionKey))
	}
	if q.RunID != "" {
		where = append(where, `run_id = `+a.add(q.RunID))
	}
	if q.DueBefore != 0 {
		where = append(where, `next_attempt_at <= `+a.add(q.DueBefore))
	}
	query := `SELECT id, ` + outboxColumns + ` FROM outbox`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY id`
	if q.Limit > 0 {
		query += ` LIMIT ` + a.add(q.Limit)
	}
	return queryAll(ctx, s, "list outbox", query, a.vals, scanOutbox)
}
