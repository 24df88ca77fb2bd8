package testkit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot is the module root: the first directory above the working
// directory (a test's package directory) that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testkit: no go.mod above the working directory")
		}
		dir = parent
	}
}
