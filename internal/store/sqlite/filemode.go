package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// createPrivate creates a missing database file empty with mode 0600
// before SQLite opens it. SQLite creates its -wal and -shm files with the
// mode of the database file, so all three stay readable by the owner
// only, like the transcripts (left to SQLite, the file would get 0644
// under the usual umask). An existing file keeps its mode: its owner
// chose it. A missing directory is left for SQLite to report.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if err := f.Close(); err != nil {
			return fmt.Errorf("open store %s: %w", path, err)
		}
		return nil
	case errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("open store %s: create the file: %w", path, err)
	}
}
