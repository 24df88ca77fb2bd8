package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/switchboard-go/switchboard/internal/domain"
)

const runColumns = `id, session_key, session_id, agent_id, kind, lane, parent_run_id, requester_key,
	idempotency_key, status, message, reply, error, usage, spec,
	timeout_ms, created_at, started_at, ended_at, updated_at, attempt`

const (
	selectRunByID = `SELECT ` + runColumns + ` FROM runs WHERE id = ?`
	// A run is looked up by idempotency key on every turn and is almost
	// never there, so the probe reads one column (a statement's column
	// names are read each time it runs); the whole row is read only when
	// the probe finds one, checking the key again in case the rowid was
	// reused in between.
	selectRunRowidByIdemKey = `SELECT rowid FROM runs WHERE idempotency_key = ?`
	selectRunByRowidIdemKey = `SELECT ` + runColumns + ` FROM runs WHERE rowid = ? AND idempotency_key = ?`
)

// runByIdemKey returns the run with idempotency key key through queryRow
// (a transaction's or the read pool's), or domain.ErrNotFound.
func runByIdemKey(queryRow func(query string, args ...any) *sql.Row, key string) (domain.Run, error) {
	var rowid int64
	err := queryRow(selectRunRowidByIdemKey, key).Scan(&rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Run{}, fmt.Errorf("run with %s %q: %w", "idempotencyKey", key, domain.ErrNotFound)
	}
	if err != nil {
		return domain.Run{}, fmt.Errorf("get run with %s %q: %w", "idempotencyKey", key, err)
	}
	return getRun(queryRow(selectRunByRowidIdemKey, rowid, key), "idempotencyKey", key)
}

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
		nullString(r.IdempotencyKey), string(r.Status), r.Message, r.Reply, r.Error, string(usage), rawOrNull(r.Spec),
		r.TimeoutMs, r.CreatedAt, r.StartedAt, r.EndedAt, r.UpdatedAt, r.Attempt,
	}, nil
}

// nullString stores "" as NULL, for UNIQUE columns where empty means none.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// rawOrNull stores an empty raw JSON value as NULL so it reads back as nil.
func rawOrNull(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

func scanRun(r rowScanner) (domain.Run, error) {
	var run domain.Run
	var idem, spec sql.NullString
	var usage string
	err := r.Scan(
		&run.ID, &run.SessionKey, &run.SessionID, &run.AgentID, &run.Kind, &run.Lane, &run.ParentRunID, &run.RequesterKey,
		&idem, &run.Status, &run.Message, &run.Reply, &run.Error, &usage, &spec,
		&run.TimeoutMs, &run.CreatedAt, &run.StartedAt, &run.EndedAt, &run.UpdatedAt, &run.Attempt,
	)
	if err != nil {
		return run, err
	}
	run.IdempotencyKey = idem.String
	if spec.Valid {
		run.Spec = json.RawMessage(spec.String)
	}
	if err := json.Unmarshal([]byte(usage), &run.Usage); err != nil {
		return run, fmt.Errorf("run %q: usage: %w", run.ID, err)
	}
	return run, nil
}

func getRun(row *sql.Row, field, value string) (domain.Run, error) {
	run, err := scanRun(row)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Run{}, fmt.Errorf("run with %s %q: %w", field, value, domain.ErrNotFound)
	}
	if err != nil {
		return domain.Run{}, fmt.Errorf("get run with %s %q: %w", field, value, err)
	}
	return run, nil
}

// isConstraint reports a UNIQUE or PRIMARY KEY violation.
func isConstraint(err error) bool { return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT }

// CreateRun inserts r. A run with the same IdempotencyKey is returned
// instead (created=false); a run with the same ID is domain.ErrConflict.
func (t *tx) CreateRun(r domain.Run) (domain.Run, bool, error) {
	if err := t.check(); err != nil {
		return domain.Run{}, false, err
	}
	if r.ID == "" {
		return domain.Run{}, false, domain.Invalid("create run: id is required")
	}
	if r.IdempotencyKey != "" {
		existing, err := runByIdemKey(t.queryRow, r.IdempotencyKey)
		if err == nil {
			return existing, false, nil
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return domain.Run{}, false, err
		}
	}
	args, err := runArgs(r)
	if err != nil {
		return domain.Run{}, false, fmt.Errorf("create run %q: %w", r.ID, err)
	}
	t.touchedRuns = append(t.touchedRuns, r.ID)
	if _, err := t.exec(`INSERT INTO runs (`+runColumns+`) VALUES (`+placeholders(len(args))+`)`, args...); err != nil {
		if isConstraint(err) {
			return domain.Run{}, false, fmt.Errorf("create run %q: id exists: %w", r.ID, domain.ErrConflict)
		}
		return domain.Run{}, false, fmt.Errorf("create run %q: %w", r.ID, err)
	}
	t.s.cache.putRun(r, args)
	return r, true, nil
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
	t.touchedRuns = append(t.touchedRuns, r.ID)
	if _, old, ok := t.s.cache.run(r.ID); ok {
		// Set only the columns that changed: an UPDATE rewrites the
		// entries of every index whose column it sets (a run's end sets
		// none of the ids and creation times the indexes hold).
		query, changed := updateChangedQuery(t.s.updateQueries, "runs", "id", runColumnNames, old, args)
		if query != "" {
			if _, err := t.execDynamic(query, append(changed, r.ID)...); err != nil {
				if isConstraint(err) {
					return fmt.Errorf("put run %q: idempotency key %q belongs to another run: %w", r.ID, r.IdempotencyKey, domain.ErrConflict)
				}
				return fmt.Errorf("put run %q: %w", r.ID, err)
			}
		}
		t.s.cache.putRun(r, args)
		return nil
	}
	res, err := t.exec(`UPDATE runs SET (`+runColumns+`) = (`+placeholders(len(args))+`) WHERE id = ?`,
		append(args, r.ID)...)
	if err != nil {
		if isConstraint(err) {
			return fmt.Errorf("put run %q: idempotency key %q belongs to another run: %w", r.ID, r.IdempotencyKey, domain.ErrConflict)
		}
		return fmt.Errorf("put run %q: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("put run %q: %w", r.ID, err)
	} else if n == 0 {
		return fmt.Errorf("put run %q: %w", r.ID, domain.ErrNotFound)
	}
	t.s.cache.putRun(r, args)
	return nil
}

// runColumnNames are the columns of runArgs, in order.
var runColumnNames = func() []string {
	names := strings.Split(runColumns, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}()

// GetRun returns the run with id, or domain.ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id string) (domain.Run, error) {
	return s.getRun(ctx, selectRunByID, "id", id)
}

// GetRunByIdempotencyKey returns the run with that key, or domain.ErrNotFound.
func (s *Store) GetRunByIdempotencyKey(ctx context.Context, key string) (domain.Run, error) {
	if s.closed.Load() {
		return domain.Run{}, fmt.Errorf("get run: %w", domain.ErrClosed)
	}
	run, err := runByIdemKey(func(query string, args ...any) *sql.Row {
		return s.pointRowR(ctx, query, args...)
	}, key)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return run, s.readErr("get run", err)
	}
	return run, err
}

func (s *Store) getRun(ctx context.Context, query, field, value string) (domain.Run, error) {
	if s.closed.Load() {
		return domain.Run{}, fmt.Errorf("get run: %w", domain.ErrClosed)
	}
	run, err := getRun(s.pointRowR(ctx, query, value), field, value)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return run, s.readErr("get run", err)
	}
	return run, err
}

// schemaV9 narrows runs_parent to the runs that have a parent: every
// top-level run (every chat turn) has parent_run_id = ” and no query asks
// for those by parent, so their entries only cost the INSERT.
const schemaV9 = `
DROP INDEX runs_parent;
CREATE INDEX runs_parent ON runs (parent_run_id, created_at DESC) WHERE parent_run_id != '';
`

// ListRuns returns the runs matching q, newest CreatedAt first.
func (s *Store) ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error) {
	if q.Limit < 0 {
		return nil, domain.Invalid("run query: limit must be >= 0 (got %d)", q.Limit)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("list runs: %w", domain.ErrClosed)
	}
	var where []string
	var args []any
	if q.SessionKey != "" {
		where = append(where, `session_key = ?`)
		args = append(args, q.SessionKey)
	}
	if q.ParentRunID != "" {
		// The literal term lets SQLite use the partial index runs_parent.
		where = append(where, `parent_run_id = ? AND parent_run_id != ''`)
		args = append(args, q.ParentRunID)
	}
	if len(q.Statuses) > 0 {
		where = append(where, `status IN (`+placeholders(len(q.Statuses))+`)`)
		args = append(args, anys(q.Statuses)...)
	}
	if len(q.Kinds) > 0 {
		where = append(where, `kind IN (`+placeholders(len(q.Kinds))+`)`)
		args = append(args, anys(q.Kinds)...)
	}
	query := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	// rowid breaks ties in insertion order: the later run first.
	query += ` ORDER BY created_at DESC, rowid DESC`
	if q.Limit > 0 {
		query += limitParam
		args = append(args, q.Limit)
	}
	return queryAll(ctx, s, "list runs", query, args, scanRun)
}
