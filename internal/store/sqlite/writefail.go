package sqlite

import (
	"errors"
	"fmt"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A write the file system refused (full disk, I/O error) is transient:
// nothing of it was committed, and the same write succeeds once space
// returns. It is reported as a retryable domain.CodeUnavailable error
// naming the cause, never as an internal or invalid one.

// writeFailure returns err as a CodeUnavailable error when SQLite failed
// to write (SQLITE_FULL, SQLITE_IOERR), else nil.
func writeFailure(err error) *domain.Error {
	if err == nil {
		return nil
	}
	var coded *domain.Error
	if errors.As(err, &coded) && coded.Code == domain.CodeUnavailable {
		return coded
	}
	var cause string
	switch sqliteCode(err) {
	case sqlite3.SQLITE_FULL:
		cause = "no space left on device (database or disk is full)"
	case sqlite3.SQLITE_IOERR:
		cause = "I/O error (" + err.Error() + ")"
	default:
		return nil
	}
	return &domain.Error{
		Code:    domain.CodeUnavailable,
		Message: fmt.Sprintf("store write failed: %s; nothing was saved, retry once the store can write again", cause),
		Err:     err,
	}
}

// classifyWrite returns err, as a CodeUnavailable error when it is a write
// failure of the file system.
func classifyWrite(err error) error {
	if e := writeFailure(err); e != nil {
		return e
	}
	return err
}
