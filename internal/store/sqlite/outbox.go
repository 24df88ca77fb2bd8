package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// outboxColumns are the outbox columns after id.
const outboxColumns = `idempotency_key, kind, session_key, run_id, channel, to_addr, payload,
	status, attempts, last_error, next_attempt_at, created_at, delivered_at`

func outboxArgs(o domain.OutboxItem) ([]any, error) {
	if len(o.Payload) > 0 && !json.Valid(o.Payload) {
		return nil, domain.Invalid("outbox %q: payload is not valid JSON", o.IdempotencyKey)
	}
	return []any{
		o.IdempotencyKey, string(o.Kind), o.SessionKey, o.RunID, o.Channel, o.To, rawOrNull(o.Payload),
		string(o.Status), o.Attempts, o.LastError, o.NextAttemptAt, o.CreatedAt, o.DeliveredAt,
	}, nil
}

func scanOutbox(r rowScanner) (domain.OutboxItem, error) {
	var o domain.OutboxItem
	var payload sql.NullString
	err := r.Scan(&o.ID,
		&o.IdempotencyKey, &o.Kind, &o.SessionKey, &o.RunID, &o.Channel, &o.To, &payload,
		&o.Status, &o.Attempts, &o.LastError, &o.NextAttemptAt, &o.CreatedAt, &o.DeliveredAt)
	if payload.Valid {
		o.Payload = []byte(payload.String)
	}
	return o, err
}

// EnqueueOutbox inserts item with a new ID unless a row with its
// IdempotencyKey exists, which is returned instead (created=false). An
// empty Status is stored as pending.
func (t *tx) EnqueueOutbox(item domain.OutboxItem) (domain.OutboxItem, bool, error) {
	if err := t.check(); err != nil {
		return domain.OutboxItem{}, false, err
	}
	if item.IdempotencyKey == "" {
		return domain.OutboxItem{}, false, domain.Invalid("enqueue outbox: idempotencyKey is required")
	}
	existing, err := scanOutbox(t.queryRow(`SELECT id, `+outboxColumns+` FROM outbox WHERE idempotency_key = ?`, item.IdempotencyKey))
	switch {
	case err == nil:
		return existing, false, nil
	case !errors.Is(err, sql.ErrNoRows):
		return domain.OutboxItem{}, false, fmt.Errorf("enqueue outbox %q: %w", item.IdempotencyKey, err)
	}
	if item.Status == "" {
		item.Status = domain.OutboxPending
	}
	args, err := outboxArgs(item)
	if err != nil {
		return domain.OutboxItem{}, false, err
	}
	res, err := t.exec(`INSERT INTO outbox (`+outboxColumns+`) VALUES (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return domain.OutboxItem{}, false, fmt.Errorf("enqueue outbox %q: %w", item.IdempotencyKey, err)
	}
	if item.ID, err = res.LastInsertId(); err != nil {
		return domain.OutboxItem{}, false, fmt.Errorf("enqueue outbox %q: %w", item.IdempotencyKey, err)
	}
	return item, true, nil
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
	args = append(args, item.ID)
	res, err := t.exec(`UPDATE outbox SET (`+outboxColumns+`) = (`+placeholders(len(args)-1)+`) WHERE id = ?`, args...)
	if err != nil {
		if isConstraint(err) {
			return fmt.Errorf("put outbox %d: idempotency key %q belongs to another row: %w", item.ID, item.IdempotencyKey, domain.ErrConflict)
		}
		return fmt.Errorf("put outbox %d: %w", item.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("put outbox %d: %w", item.ID, err)
	} else if n == 0 {
		return fmt.Errorf("put outbox %d: %w", item.ID, domain.ErrNotFound)
	}
	return nil
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
	var args []any
	if len(q.Statuses) > 0 {
		where = append(where, `status IN (`+placeholders(len(q.Statuses))+`)`)
		args = append(args, anys(q.Statuses)...)
	}
	if q.SessionKey != "" {
		where = append(where, `session_key = ?`)
		args = append(args, q.SessionKey)
	}
	if q.RunID != "" {
		where = append(where, `run_id = ?`)
		args = append(args, q.RunID)
	}
	if q.DueBefore != 0 {
		where = append(where, `next_attempt_at <= ?`)
		args = append(args, q.DueBefore)
	}
	query := `SELECT id, ` + outboxColumns + ` FROM outbox`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY id`
	if q.Limit > 0 {
		query += limitParam
		args = append(args, q.Limit)
	}
	return queryAll(ctx, s, "list outbox", query, args, scanOutbox)
}
