package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
)

// The writer's hottest statements skip database/sql.
//
// An import runs one INSERT per search index row and one per 16 message
// rows. Through database/sql each Exec converts and copies its arguments
// into a fresh []driver.NamedValue, allocates its Result, and locks the
// connection: about a tenth of the writer's time per imported message,
// and the writer is the import's critical path. rawExec runs such
// statements on the write connection's driver connection, prepared once
// and bound from a reused argument slice. Only the writer calls it, from
// inside sql.Conn.Raw (withDriver), as database/sql asks. The arguments
// must already be driver values (int64, float64, bool, []byte, string,
// nil): database/sql would pass exactly those through unchanged, and
// anything else is refused here rather than converted.

// rawStmt is a statement prepared on the write connection's driver
// connection: the statement, to close, and its exec.
type rawStmt struct {
	st driver.Stmt
	ex driver.StmtExecContext
}

// closeRawStmts closes the driver statements, on the driver connection,
// before the connection closes.
func (s *Store) closeRawStmts() error {
	if len(s.rawStmts) == 0 || s.wconn == nil {
		return nil
	}
	var errs []error
	err := s.wconn.Raw(func(any) error {
		for q, st := range s.rawStmts {
			errs = append(errs, st.st.Close())
			delete(s.rawStmts, q)
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// rawConn is the write connection's driver connection, lent by withDriver.
type rawConn struct {
	s  *Store
	dc driver.Conn
}

// withDriver runs fn with the write connection's driver connection.
func (s *Store) withDriver(fn func(rc rawConn) error) error {
	return s.wconn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("sqlite: driver connection is a %T", dc)
		}
		return fn(rawConn{s: s, dc: c})
	})
}

// errNotDriverValue refuses an argument database/sql would have converted.
var errNotDriverValue = errors.New("sqlite: argument is not a driver value")

// prepared returns query prepared on the driver connection, preparing it
// the first time.
func (rc rawConn) prepared(query string) (rawStmt, error) {
	s := rc.s
	st, ok := s.rawStmts[query]
	if ok {
		return st, nil
	}
	prep, ok := rc.dc.(driver.ConnPrepareContext)
	if !ok {
		return rawStmt{}, fmt.Errorf("sqlite: driver connection cannot prepare with a context")
	}
	ds, err := prep.PrepareContext(context.Background(), query)
	if err != nil {
		return rawStmt{}, err
	}
	ex, ok := ds.(driver.StmtExecContext)
	if !ok {
		_ = ds.Close()
		return rawStmt{}, fmt.Errorf("sqlite: driver statement cannot exec with a context")
	}
	st = rawStmt{ds, ex}
	s.rawStmts[query] = st
	return st, nil
}

// queryInt runs query, which takes no arguments and returns one integer
// row, on the driver connection.
func (rc rawConn) queryInt(query string) (int64, error) {
	st, err := rc.prepared(query)
	if err != nil {
		return 0, err
	}
	qx, ok := st.st.(driver.StmtQueryContext)
	if !ok {
		return 0, fmt.Errorf("sqlite: driver statement cannot query with a context")
	}
	rows, err := qx.QueryContext(context.Background(), nil)
	if err != nil {
		return 0, err
	}
	var dest [1]driver.Value
	err = rows.Next(dest[:])
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	v, ok := dest[0].(int64)
	if !ok {
		return 0, fmt.Errorf("sqlite: %s returned a %T, want an integer", query, dest[0])
	}
	return v, nil
}

// exec runs query with args on the driver connection and returns the
// driver's rowid of the last insert.
func (rc rawConn) exec(query string, args ...any) (lastID int64, err error) {
	s := rc.s
	st, err := rc.prepared(query)
	if err != nil {
		return 0, err
	}
	nv := s.rawArgs[:0]
	for i, a := range args {
		if !driver.IsValue(a) {
			return 0, fmt.Errorf("%w: argument %d is a %T", errNotDriverValue, i+1, a)
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
	res, err := st.ex.ExecContext(context.Background(), nv)
	clear(nv) // let the bodies and texts go
	s.rawArgs = nv
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// execRaw is tx.exec on the driver connection; it returns the rowid of
// the last insert. fn's other statements (through database/sql) must not
// run inside it: withDriver holds the connection.
func (t *tx) execRaw(query string, args ...any) (int64, error) {
	if t.s.writeFailed != nil {
		return 0, t.s.writeFailed
	}
	var last int64
	err := t.s.withDriver(func(rc rawConn) error {
		var err error
		last, err = rc.exec(query, args...)
		return err
	})
	return last, t.noteWrite(err)
}
