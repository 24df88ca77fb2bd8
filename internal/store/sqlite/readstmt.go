package sqlite

import (
	"context"
	"database/sql"
)

// Reads go through statements prepared once on the read pool: parsing and
// planning a 38-column SELECT costs more than running it. database/sql
// prepares each statement again on every pool connection that runs it and
// keeps it there.

// limitParam is a bound LIMIT. The unary plus hides the parameter from
// the planner: SQLite would otherwise read the bound value while planning
// and mark the statement to be parsed and planned again after every new
// binding, which defeats preparing it once.
const limitParam = " LIMIT +?"

// readStmt returns the read statement for query, or nil when the cache is
// full (the caller then runs the query unprepared).
func (s *Store) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.rmu.Lock()
	st, ok := s.rstmts[query]
	full := len(s.rstmts) >= maxCachedStmts
	s.rmu.Unlock()
	if ok || full {
		return st, nil
	}
	st, err := s.rdb.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if prev, ok := s.rstmts[query]; ok {
		// Another reader prepared it meanwhile; keep one.
		_ = st.Close()
		return prev, nil
	}
	s.rstmts[query] = st
	return st, nil
}

// queryR runs a read query.
func (s *Store) queryR(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.rdb.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRowR runs a read query of one row.
func (s *Store) queryRowR(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := s.readStmt(ctx, query)
	if err != nil || st == nil {
		// An unprepared query reports the same preparation error in Scan.
		return s.rdb.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// pointRowR is queryRowR for a read of at most one row found through an
// index (a key, an id, a rowid bound): such a read finishes in
// microseconds, so its context is checked when it starts and not watched
// while it runs. Watching costs more than the read: database/sql and the
// driver each start a goroutine per query to wait on a context that can
// be cancelled. Queries that may scan (counts, lists, search) keep
// queryRowR and queryR.
func (s *Store) pointRowR(ctx context.Context, query string, args ...any) *sql.Row {
	if ctx.Err() == nil {
		ctx = context.WithoutCancel(ctx)
	}
	return s.queryRowR(ctx, query, args...)
}

// closeReadStmts closes the cached read statements.
func (s *Store) closeReadStmts() []error {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	var errs []error
	for q, st := range s.rstmts {
		errs = append(errs, st.Close())
		delete(s.rstmts, q)
	}
	return errs
}

// queryAll runs a read query and scans every row with scan; op names the
// operation in errors.
func queryAll[T any](ctx context.Context, s *Store, op, query string, args []any, scan func(rowScanner) (T, error)) ([]T, error) {
	rows, err := s.queryR(ctx, query, args...)
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
