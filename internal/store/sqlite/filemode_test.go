package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestNewStoreFilesArePrivate: a store created from nothing leaves its
// database, -wal and -shm files readable by the owner only (0600), like
// the transcripts, under the usual umask (022) as under any other.
func TestNewStoreFilesArePrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(name)
		if err != nil {
			t.Fatalf("stat %s: %v", filepath.Base(name), err)
		}
		if mode := st.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %#o, want 0600", filepath.Base(name), mode)
		}
	}
}
