package storecopy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A postgres URL without a host or a database is refused when parsed, so
// the copy never falls back to the local socket.
func TestParseEndpointPostgres(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"postgres://", "needs a host and a database"},
		{"postgres://db.example.com", "needs a database ("},
		{"postgres://db.example.com:5432/", "needs a database ("},
		{"postgresql://u:secret@/sb", "needs a host ("},
		{"postgres://u:secret@db.example.com/sb", ""},
		{"postgres:///sb?host=/run/postgresql", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseEndpoint(tt.in)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseEndpoint: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseEndpoint(%q) = %v, want %q", tt.in, err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// A SQLite target in a missing directory is refused, and Open creates no
// directory for it.
func TestCheckTargetMissingDir(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope", "deeper")
	ep, err := ParseEndpoint("sqlite:" + filepath.Join(missing, "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.CheckTarget(); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("CheckTarget = %v, want a missing-directory error", err)
	}
	if _, err := ep.Open(t.Context(), true); err == nil {
		t.Fatal("Open created a store in a missing directory")
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); err == nil {
		t.Fatal("Open created the missing directory")
	}
	ok, _ := ParseEndpoint("sqlite:" + filepath.Join(dir, "x.db"))
	if err := ok.CheckTarget(); err != nil {
		t.Fatalf("CheckTarget in an existing directory: %v", err)
	}
}
