package storecopy

import (
	"os"
	"path/filepath"
	"testing"
)

// Same sees one SQLite file under another name: a relative path, a
// "..", a symbolic link (migrate then refuses to copy a store onto itself
// instead of reporting "already holds exactly this copy").
func TestSameSQLiteFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "switchboard.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	src := Endpoint{Driver: "sqlite", Path: db}
	tests := []struct {
		path string
		same bool
	}{
		{db, true},
		{filepath.Join(dir, "x", "..", "switchboard.db"), true},
		{link, true},
		{filepath.Join(dir, "other.db"), false},
	}
	for _, tt := range tests {
		if got := src.Same(Endpoint{Driver: "sqlite", Path: tt.path}); got != tt.same {
			t.Errorf("Same(%s) = %v, want %v", tt.path, got, tt.same)
		}
	}
}
