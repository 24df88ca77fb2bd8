package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A zero-byte store file is a new store in a fresh state dir, but beside
// transcripts it is a store that lost its contents: Open refuses it and
// leaves it untouched instead of presenting every session as gone.
func TestOpenZeroByteStore(t *testing.T) {
	tests := []struct {
		name        string
		transcripts int  // *.jsonl files written under agents/main/sessions
		wal         bool // a non-empty -wal file beside the store
		wantErr     bool
	}{
		{name: "FreshStateDir", transcripts: 0},
		{name: "BesideTranscripts", transcripts: 2, wantErr: true},
		{name: "WALHoldsTheDatabase", transcripts: 2, wal: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "switchboard.db")
			writeFile(t, path, nil)
			sessions := filepath.Join(dir, "agents", "main", "sessions")
			if err := os.MkdirAll(sessions, 0o700); err != nil {
				t.Fatal(err)
			}
			for i := range tc.transcripts {
				writeFile(t, filepath.Join(sessions, string(rune('a'+i))+".jsonl"), []byte(`{"type":"session"}`+"\n"))
			}
			if tc.wal {
				// A non-empty write-ahead log may hold the database:
				// SQLite, not the zero-byte check, judges it.
				writeFile(t, path+"-wal", []byte("x"))
			}
			glob := filepath.Join(dir, "agents", "*", "sessions", "*.jsonl")
			st, err := Open(t.Context(), path, Options{Transcripts: glob})
			if tc.wal {
				// SQLite judges the log; the point is that we did not refuse.
				if errors.Is(err, ErrEmptyStore) {
					t.Fatalf("Open refused a zero-byte store with a WAL beside it: %v", err)
				}
				if err == nil {
					st.Close()
				}
				return
			}
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("Open of a zero-byte store in a fresh dir: %v", err)
				}
				st.Close()
				return
			}
			if err == nil {
				st.Close()
				t.Fatal("Open succeeded on a zero-byte store beside transcripts")
			}
			if !errors.Is(err, ErrEmptyStore) || !strings.Contains(err.Error(), "2 transcripts exist") || !strings.Contains(err.Error(), path) {
				t.Fatalf("error = %v, want ErrEmptyStore naming the path and 2 transcripts", err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
				t.Fatalf("a refused Open changed the store file: %v, %v", fi, err)
			}
		})
	}
}
