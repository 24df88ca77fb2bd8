package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDictionaryReproducible: the checked-in dictionary is what this
// program makes, so anyone can rebuild it and review a change to it.
func TestDictionaryReproducible(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dict.zstd")
	if err := run(out, 1, 20000, "testdata"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "dict.zstd"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("gendict made %d bytes that differ from the checked-in dict.zstd (%d bytes); rerun go run ./internal/store/msgbody/gendict", len(got), len(want))
	}
}

func TestRunRejectsIDZero(t *testing.T) {
	if err := run(filepath.Join(t.TempDir(), "d"), 0, 10, t.TempDir()); err == nil {
		t.Error("id 0 accepted")
	}
}
