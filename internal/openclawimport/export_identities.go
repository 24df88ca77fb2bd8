package openclawimport

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// identityWriter writes an agent database's transcript_event_identities
// rows into a file of their own, on a goroutine of its own, while the
// export's writer fills the agent database with everything else: two
// SQLite writers, one per core, instead of one doing both. copyInto then
// moves the rows into the agent database in one INSERT … SELECT of a
// table with the same definition into an empty one, which SQLite
// performs as a copy of its records rather than one insert per row.
type identityWriter struct {
	path string
	db   *sql.DB
	// rows carries batches of identityRow arguments, rowsPerInsert rows
	// each but the last; the writer owns a batch once it is sent.
	rows chan []any
	done chan error
	// finished and err are finish's: whether it ran, what it returned.
	finished bool
	err      error
}

// identitySideSuffix names the side file beside the agent database; it
// lives in the export's temporary directory and is removed before the
// export is renamed into place.
const identitySideSuffix = ".identities"

// startIdentityWriter creates the side file for the agent database at
// dbPath with schema, the statements creating
// transcript_event_identities and its indexes, and starts its writer.
// The side file keeps the indexes while rows go in, so the copy carries
// them whole and nothing is left to build after it.
func startIdentityWriter(ctx context.Context, dbPath, schema string) (_ *identityWriter, err error) {
	path := dbPath + identitySideSuffix
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+exportPragmas)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	defer func() {
		if err != nil {
			db.Close()
			os.Remove(path)
		}
	}()
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("%s: create table: %w", path, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	one, err := tx.PrepareContext(ctx, identityInsert+identityRow)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	many, err := tx.PrepareContext(ctx, identityInsert+multiRow(identityRow, rowsPerInsert))
	if err != nil {
		one.Close()
		tx.Rollback()
		return nil, err
	}
	iw := &identityWriter{path: path, db: db, rows: make(chan []any, exportAhead), done: make(chan error, 1)}
	go func() {
		iw.done <- iw.write(ctx, tx, one, many)
	}()
	return iw, nil
}

// write runs on the writer's goroutine until rows is closed. After an
// error it drains rows without writing, so the sender never blocks.
func (iw *identityWriter) write(ctx context.Context, tx *sql.Tx, one, many *sql.Stmt) error {
	var err error
	for batch := range iw.rows {
		if err != nil {
			continue
		}
		if len(batch) == rowsPerInsert*6 {
			_, err = many.ExecContext(ctx, batch...)
			continue
		}
		for a := batch; len(a) > 0 && err == nil; a = a[6:] {
			_, err = one.ExecContext(ctx, a[:6]...)
		}
	}
	one.Close()
	many.Close()
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("transcript_event_identities: %w", err)
	}
	return tx.Commit()
}

// add hands a batch of rows to the writer.
func (iw *identityWriter) add(ctx context.Context, batch []any) error {
	select {
	case iw.rows <- batch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish stops the writer once it wrote what it was given and closes
// the side file (its exclusive lock would keep copyInto out). Calls after
// the first return the first one's error.
func (iw *identityWriter) finish() error {
	if !iw.finished {
		iw.finished = true
		close(iw.rows)
		iw.err = errors.Join(<-iw.done, iw.db.Close())
	}
	return iw.err
}

// copyInto copies the written rows and their index entries into db's
// empty transcript_event_identities, whose indexes are the side file's.
// db must be outside a transaction (ATTACH is refused inside one) and
// hold one connection.
func (iw *identityWriter) copyInto(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "ATTACH DATABASE ? AS side", iw.path); err != nil {
		return fmt.Errorf("attach %s: %w", iw.path, err)
	}
	_, err := db.ExecContext(ctx, "INSERT INTO transcript_event_identities SELECT * FROM side.transcript_event_identities")
	if _, derr := db.ExecContext(ctx, "DETACH DATABASE side"); err == nil && derr != nil {
		err = derr
	}
	if err != nil {
		return fmt.Errorf("transcript_event_identities: %w", err)
	}
	return nil
}

// remove removes the side file, after finish.
func (iw *identityWriter) remove() error {
	return os.Remove(iw.path)
}

// tableSchema returns the statements of schema (one per "CREATE" at the
// start of a line, as `.schema` prints it) that create table name and
// its indexes.
func tableSchema(schema, name string) (string, error) {
	var b strings.Builder
	found := false
	for _, stmt := range strings.Split(schema, "\nCREATE ") {
		stmt = "CREATE " + strings.TrimPrefix(strings.TrimSpace(stmt), "CREATE ")
		switch {
		case strings.HasPrefix(stmt, "CREATE TABLE "+name+" ("):
			found = true
		case strings.Contains(stmt, "INDEX ") && strings.Contains(stmt, " ON "+name+"("):
		default:
			continue
		}
		b.WriteString(stmt)
		b.WriteString("\n")
	}
	if !found {
		return "", fmt.Errorf("internal error: no table %s in the agent schema", name)
	}
	return b.String(), nil
}
