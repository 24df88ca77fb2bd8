package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// errTxDone is returned by a Tx used after its fn returned.
var errTxDone = errors.New("sqlite: Tx used after its Update fn returned")

// tx is the domain.Tx lent to one fn. Its statements run on the write
// connection inside the batch transaction and the fn's savepoint.
type tx struct {
	s    *Store
	ctx  context.Context
	done atomic.Bool
	// rows caches the stored column values of session rows this fn read or
	// wrote, so the usual GetSession → PutSession reads the row once. Only
	// this fn writes through this tx, so the cache stays true until it ends.
	rows map[string][]any
	// touched lists the keys whose entries in the writer's cache this fn
	// changed, for the cache to forget if the fn's writes are rolled back.
	touched []string
	// touchedRuns lists the runs whose cached rows this fn changed.
	touchedRuns []string
	// index holds the search index rows of this fn's appends, and
	// deleted the keys it deleted; the writer applies both to the batch
	// when the fn succeeds (search.go).
	index   []indexRow
	deleted []string
	// bulk: this fn appended prepared messages (a bulk writer's).
	bulk bool
}

func (t *tx) touch(key string) { t.touched = append(t.touched, key) }

var _ domain.Tx = (*tx)(nil)

func (t *tx) finish() { t.done.Store(true) }

func (t *tx) check() error {
	if t.done.Load() {
		return errTxDone
	}
	return nil
}

// stmt returns the statement for query prepared on the write connection,
// preparing it on first use. Only the writer, or the fn it lent the
// connection to, calls it, one at a time.
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	st, err := s.wconn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts[query] = st
	return st, nil
}

func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	if t.s.writeFailed != nil {
		return nil, t.s.writeFailed
	}
	st, err := t.s.stmt(t.ctx, query)
	if err != nil {
		return nil, t.noteWrite(err)
	}
	res, err := st.ExecContext(t.ctx, args...)
	return res, t.noteWrite(err)
}

// noteWrite remembers a write failure of the file system, which breaks
// the whole batch (runOne reports it as fatal), and returns err coded.
func (t *tx) noteWrite(err error) error {
	if e := writeFailure(err); e != nil {
		t.s.writeFailed = e
		return e
	}
	return err
}

// maxCachedStmts bounds the statement cache, which dynamic statements
// (PutSession's UPDATE of the changed columns) could otherwise grow.
const maxCachedStmts = 512

// execDynamic is exec for statements built at run time: cached while the
// cache has room, else run unprepared.
func (t *tx) execDynamic(query string, args ...any) (sql.Result, error) {
	if _, ok := t.s.stmts[query]; ok || len(t.s.stmts) < maxCachedStmts {
		return t.exec(query, args...)
	}
	res, err := t.s.wconn.ExecContext(t.ctx, query, args...)
	return res, t.noteWrite(err)
}

func (t *tx) queryRow(query string, args ...any) *sql.Row {
	st, err := t.s.stmt(t.ctx, query)
	if err != nil {
		// Only a query makes a *sql.Row; the unprepared one fails the same
		// way and hands the error to the caller's Scan.
		return t.s.wconn.QueryRowContext(t.ctx, query, args...)
	}
	return st.QueryRowContext(t.ctx, args...)
}

// GetSession reads a session row, seeing the transaction's own writes.
func (t *tx) GetSession(key string) (domain.Session, error) {
	if err := t.check(); err != nil {
		return domain.Session{}, err
	}
	if s, args, ok := t.s.cache.session(key); ok {
		t.cacheRow(key, args)
		return s, nil
	}
	s, err := getSession(t.queryRow(selectSessionByKey, key), key)
	if err != nil {
		return s, err
	}
	args := sessionArgs(&s)
	t.cacheRow(key, args)
	t.s.cache.putSession(key, s, args)
	return s, nil
}

func (t *tx) cacheRow(key string, args []any) {
	if t.rows == nil {
		t.rows = make(map[string][]any)
	}
	t.rows[key] = args
}

// storedSession returns the column values of the stored row of key, or
// nil when there is none.
func (t *tx) storedSession(key string) ([]any, error) {
	old, err := getSession(t.queryRow(selectSessionByKey, key), key)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return sessionArgs(&old), nil
}

// GetRun reads a run, seeing the transaction's own writes.
func (t *tx) GetRun(id string) (domain.Run, error) {
	if err := t.check(); err != nil {
		return domain.Run{}, err
	}
	if r, _, ok := t.s.cache.run(id); ok {
		return r, nil
	}
	r, err := getRun(t.queryRow(selectRunByID, id), "id", id)
	if err != nil {
		return r, err
	}
	if args, err := runArgs(r); err == nil {
		t.s.cache.putRun(r, args)
	}
	return r, nil
}

// PutSession inserts or replaces the row with s.Key.
func (t *tx) PutSession(s domain.Session) error {
	if err := t.check(); err != nil {
		return err
	}
	if s.Key == "" {
		return domain.Invalid("put session: key is required")
	}
	args := sessionArgs(&s)
	oldArgs, known := t.rows[s.Key]
	if !known {
		// A row the writer holds is not new.
		_, oldArgs, known = t.s.cache.session(s.Key)
	}
	if !known {
		// Try the insert first: a row this fn has not read is new more
		// often than not (an import writes nothing else), and then the
		// insert is all it takes.
		res, err := t.exec(insertSessionIfNew, args...)
		if err != nil {
			return fmt.Errorf("put session %q: %w", s.Key, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("put session %q: %w", s.Key, err)
		}
		if n == 1 {
			t.cacheRow(s.Key, args)
			t.touch(s.Key)
			t.s.cache.putSession(s.Key, s, args)
			return nil
		}
		if oldArgs, err = t.storedSession(s.Key); err != nil {
			return fmt.Errorf("put session %q: %w", s.Key, err)
		}
		if oldArgs == nil {
			return fmt.Errorf("put session %q: the insert met a row that is not there", s.Key)
		}
	}
	// Set only the columns that changed: SQLite rewrites the entries of
	// every index whose column an UPDATE sets, changed or not, and those
	// pages are what a commit writes. A run's PutSession usually changes
	// updatedAt and token counts only.
	query, changed := updateChangedQuery(t.s.updateQueries, "sessions", "key", t.s.sessionCols, oldArgs, args)
	if query == "" {
		return nil
	}
	// Marked before the write: if this fn fails, the cache forgets it.
	t.touch(s.Key)
	if _, err := t.execDynamic(query, append(changed, s.Key)...); err != nil {
		return fmt.Errorf("put session %q: %w", s.Key, err)
	}
	t.cacheRow(s.Key, args)
	t.s.cache.putSession(s.Key, s, args)
	return nil
}

// DeleteSession removes the row and every message of the key, of every
// generation. Deleting a key that has no row is not an error.
func (t *tx) DeleteSession(key string) error {
	if err := t.check(); err != nil {
		return err
	}
	if _, err := t.exec(deleteIndexedSQL, key); err != nil {
		return fmt.Errorf("delete session %q: search index: %w", key, err)
	}
	t.index = dropKey(t.index, key)
	t.deleted = append(t.deleted, key)
	if _, err := t.exec(`DELETE FROM messages WHERE gen IN (SELECT gen FROM message_gens WHERE session_key = ?)`, key); err != nil {
		return fmt.Errorf("delete session %q: messages: %w", key, err)
	}
	if _, err := t.exec(`DELETE FROM message_gens WHERE session_key = ?`, key); err != nil {
		return fmt.Errorf("delete session %q: generations: %w", key, err)
	}
	if _, err := t.exec(lowerIndexedSQL); err != nil {
		return fmt.Errorf("delete session %q: search index: %w", key, err)
	}
	if _, err := t.exec(`DELETE FROM sessions WHERE key = ?`, key); err != nil {
		return fmt.Errorf("delete session %q: %w", key, err)
	}
	// Its ancestors' tree rollups keep what it spent: that was spent.
	if _, err := t.exec(`DELETE FROM session_accounts WHERE session_key = ?`, key); err != nil {
		return fmt.Errorf("delete session %q: account: %w", key, err)
	}
	delete(t.rows, key)
	t.touch(key)
	t.s.cache.forget([]string{key})
	if t.s.hasLegacyIDs {
		if _, err := t.exec(`DELETE FROM legacy_entry_ids WHERE session_key = ?`, key); err != nil {
			return fmt.Errorf("delete session %q: legacy ids: %w", key, err)
		}
	}
	return nil
}
