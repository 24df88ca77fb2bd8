package sqlite

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestExecRaw: execRaw binds driver values as database/sql would, refuses
// anything else, reports SQLite's errors, and Close closes its statements.
func TestExecRaw(t *testing.T) {
	st, err := Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const create = `CREATE TABLE IF NOT EXISTS raw_test (i, s, b, n)`
	const insert = `INSERT INTO raw_test (i, s, b, n) VALUES (?, ?, ?, ?)`
	for _, tc := range []struct {
		name    string
		args    []any
		wantErr error // nil: inserted; errAny: some SQLite error
	}{
		{"driver values", []any{int64(7), "text", []byte{1, 2}, nil}, nil},
		{"again, cached statement", []any{int64(8), "", []byte{}, nil}, nil},
		{"an int", []any{7, "text", nil, nil}, errNotDriverValue},
		{"a struct", []any{int64(7), struct{}{}, nil, nil}, errNotDriverValue},
		{"too few", []any{int64(7)}, errAny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var last int64
			err := st.Update(t.Context(), func(dt domain.Tx) error {
				tx := dt.(*tx)
				if _, err := tx.exec(create); err != nil {
					return err
				}
				var err error
				last, err = tx.execRaw(insert, tc.args...)
				return err
			})
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("execRaw: %v", err)
			case tc.wantErr == errAny && err == nil, tc.wantErr != nil && tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("execRaw: %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				return
			}
			var i int64
			var s string
			var b []byte
			if err := st.rdb.QueryRowContext(t.Context(), `SELECT i, s, b FROM raw_test WHERE rowid = ?`, last).Scan(&i, &s, &b); err != nil {
				t.Fatal(err)
			}
			if i != tc.args[0].(int64) || s != tc.args[1].(string) || string(b) != string(tc.args[2].([]byte)) {
				t.Errorf("row %d: %d %q %v, want %v", last, i, s, b, tc.args)
			}
		})
	}
	// The insert is prepared once for all the cases; the other cached
	// statement is the writer's data-version question of every batch.
	if _, ok := st.rawStmts[insert]; !ok || len(st.rawStmts) != 2 {
		t.Errorf("raw statements cached: %d (insert among them: %v), want the insert and PRAGMA data_version", len(st.rawStmts), ok)
	}
	if _, ok := st.rawStmts["PRAGMA data_version"]; !ok {
		t.Error("PRAGMA data_version is not a cached raw statement")
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if len(st.rawStmts) != 0 {
		t.Errorf("%d raw statements left after Close", len(st.rawStmts))
	}
}

// errAny stands for any error in TestExecRaw's table.
var errAny = errors.New("any error")
