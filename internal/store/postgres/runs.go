package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
)

const runColumns = `id, session_key, session_id, agent_id, kind, lane, parent_run_id, requester_key,
	idempotency_key, status, message, reply, error, usage, spec,
	timeout_ms, created_at, started_at, ended_at, updated_at, attempt`

// runColumnCount is the number of runColumns.
const runColumnCount = 21

const (
	selectRunByID      = `SELECT ` + runColumns + ` FROM runs WHERE id = $1`
	selectRunByIdemKey = `SELECT ` + runColumns + ` FROM runs WHERE idempotency_key = $1`
)

// numbered returns "$from, …, $(from+n-1)".
func numbered(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

var (
	insertRun = `INSERT INTO runs (` + runColumns + `) VALUES (` + numbered(1, runColumnCount) + `) ON CONFLICT DO NOTHING`
	// updateRun replaces the run $1 unless another run holds its
	// idempotency key: that is a conflict, told apart from a missing run
	// by a second look, and it must not raise an error, which would abort
	// the whole transaction.
	updateRun = `UPDATE runs SET (` + runColumns + `) = (` + numbered(1, runColumnCount) + `) WHERE id = $1
	AND ($9::text IS NULL OR NOT EXISTS (SELECT 1 FROM runs o WHERE o.idempotency_key = $9 AND o.id <> $1))`
)

func runArgs(r domain.Run) ([]any, error) {
	if len(r.Spec) > 0 && !json.Valid(r.Spec) {
		return nil, domain.Invalid("run %q: spec is not valid JSON", r.ID)
	}
	usage, err := json.Marshal(r.Usage)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	return []any{
		r.ID, r.SessionKey, r.SessionID, r.AgentID, string(r.Kind), string(r.Lane), r.ParentRunID, r.RequesterKey,
		nullString(r.IdempotencyKey), string(r.Status), pgText(r.Message), pgText(r.Reply), pgText(r.Error), string(usage), rawOrNull(r.Spec),
		r.TimeoutMs, r.CreatedAt, r.StartedAt, r.EndedAt, r.UpdatedAt, r.Attempt,
	}, nil
}

// nullString stores "" as NULL, for UNIQUE columns where empty means none.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// rawOrNull stores an empty raw JSON value as NULL so it reads back as nil.
func rawOrNull(b json.RawMessage) *string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	return &s
}

func scanRun(r pgx.Row) (domain.Run, error) {
	var run domain.Run
	var idem, spec *string
	var usage string
	err := r.Scan(
		&run.ID, &run.SessionKey, &run.SessionID, &run.AgentID, &run.Kind, &run.Lane, &run.ParentRunID, &run.RequesterKey,
		&idem, &run.Status, &run.Message, &run.Reply, &run.Error, &usage, &spec,
		&run.TimeoutMs, &run.CreatedAt, &run.StartedAt, &run.EndedAt, &run.UpdatedAt, &run.Attempt,
	)
	if err != nil {
		return run, err
	}
	if idem != nil {
		run.IdempotencyKey = *idem
	}
	if spec != nil {
		run.Spec = json.RawMessage(*spec)
	}
	if err := json.Unmarshal([]byte(usage), &run.Usage); err != nil {
		return run, fmt.Errorf("run %q: usage: %w", run.ID, err)
	}
	return run, nil
}

func getRun(row pgx.Row, field, value string) (domain.Run, error) {
	run, err := scanRun(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Run{}, fmt.Errorf("run with %s %q: %w", field, value, domain.ErrNotFound)
	}
	if err != nil {
		return domain.Run{}, fmt.Errorf("get run with %s %q: %w", field, value, err)
	}
	return run, nil
}

// CreateRun inserts r. A run with the same IdempotencyKey is returned
// instead (created=false); a run with the same ID is domain.ErrConflict.
// ON CONFLICT makes this hold between processes: a second insert of the
// same key waits for the first transaction and then finds its row.
func (t *tx) CreateRun(r domain.Run) (domain.Run, bool, error) {
	if err := t.check(); err != nil {
		return domain.Run{}, false, err
	}
	if r.ID == "" {
		return domain.Run{}, false, domain.Invalid("create run: id is required")
	}
	args, err := runArgs(r)
	if err != nil {
		return domain.Run{}, false, fmt.Errorf("create run %q: %w", r.ID, err)
	}
	tag, err := t.exec(insertRun, args...)
	if err != nil {
		return domain.Run{}, false, fmt.Errorf("create run %q: %w", r.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return r, true, nil
	}
	if r.IdempotencyKey != "" {
		existing, err := getRun(t.queryRow(selectRunByIdemKey, r.IdempotencyKey), "idempotencyKey", r.IdempotencyKey)
		if err == nil {
			return existing, false, nil
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return domain.Run{}, false, fmt.Errorf("create run %q: %w", r.ID, err)
		}
	}
	return domain.Run{}, false, fmt.Errorf("create run %q: id exists: %w", r.ID, domain.ErrConflict)
}

// PutRun replaces the run with r.ID, or returns domain.ErrNotFound.
func (t *tx) PutRun(r domain.Run) error {
	if err := t.check(); err != nil {
		return err
	}
	args, err := runArgs(r)
	if err != nil {
		return fmt.Errorf("put run %q: %w", r.ID, err)
	}
	tag, err := t.exec(updateRun, args...)
	if err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("put run %q: idempotency key %q belongs to another run: %w", r.ID, r.IdempotencyKey, domain.ErrConflict)
		}
		return fmt.Errorf("put run %q: %w", r.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var exists bool
	if err := t.queryRow(`SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1)`, r.ID).Scan(&exists); err != nil {
		return fmt.Errorf("put run %q: %w", r.ID, err)
	}
	if exists {
		return fmt.Errorf("put run %q: idempotency key %q belongs to another run: %w", r.ID, r.IdempotencyKey, domain.ErrConflict)
	}
	return fmt.Errorf("put run %q: %w", r.ID, domain.ErrNotFound)
}

// GetRun returns the run with id, or domain.ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id string) (domain.Run, error) {
	return s.getRun(ctx, selectRunByID, "id", id)
}

// GetRunByIdempotencyKey returns the run with that key, or domain.ErrNotFound.
func (s *Store) GetRunByIdempotencyKey(ctx context.Context, key string) (domain.Run, error) {
	return s.getRun(ctx, selectRunByIdemKey, "idempotencyKey", key)
}

func (s *Store) getRun(ctx context.Context, query, field, value string) (domain.Run, error) {
	if s.closed.Load() {
		return domain.Run{}, fmt.Errorf("get run: %w", domain.ErrClosed)
	}
	run, err := getRun(s.queryRow(ctx, query, value), field, value)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return run, s.readErr("get run", err)
	}
	return run, err
}

// ListRuns returns the runs matching q, newest CreatedAt first (the later
// inserted first among equal times).
func (s *Store) ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error) {
	if q.Limit < 0 {
		return nil, domain.Invalid("run query: limit must be >= 0 (got %d)", q.Limit)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("list runs: %w", domain.ErrClosed)
	}
	var where []string
	var a args
	if q.SessionKey != "" {
		where = append(where, `session_key = `+a.add(q.SessionKey))
	}
	if q.ParentRunID != "" {
		where = append(where, `parent_run_id = `+a.add(q.ParentRunID))
	}
	if len(q.Statuses) > 0 {
		where = append(where, `status = ANY(`+a.add(strs(q.Statuses))+`::text[])`)
	}
	if len(q.Kinds) > 0 {
		where = append(where, `kind = ANY(`+a.add(strs(q.Kinds))+`::text[])`)
	}
	query := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY created_at DESC, insert_order DESC`
	if q.Limit > 0 {
		query += ` LIMIT ` + a.add(q.Limit)
	}
	return queryAll(ctx, s, "list runs", query, a.vals, scanRun)
}

// customPlan prepends pgx.QueryExecModeExec to args: the statement is sent
// unnamed and planned with the actual values on every call. A cached
// prepared statement may switch to PostgreSQL's generic plan after five
// runs, and for a LIMIT over one key's rows (whose count the planner can
// only guess without the values) that plan can be a scan and sort of every
// row: hundreds of milliseconds where the custom plan takes a fraction of one.
func customPlan(args []any) []any {
	return append([]any{pgx.QueryExecModeExec}, args...)
}

func strs[T ~string](ss []T) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// queryAll runs query on the pool and scans every row with scan.
func queryAll[T any](ctx context.Context, s *Store, op, query string, args []any, scan func(pgx.Row) (T, error)) ([]T, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.readErr(op, err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, s.readErr(op, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr(op, err)
	}
	return out, nil
}
