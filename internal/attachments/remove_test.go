package attachments

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// layout builds a workspace with one attachments folder and an outside
// folder holding a file that must survive every refused removal.
func layout(t *testing.T) (root, dir, outside, victim string) {
	t.Helper()
	ws := t.TempDir()
	_, dir, err := Materialize(ws, []File{{Name: "a", Data: []byte("x")}}, fixedID("kept"))
	if err != nil {
		t.Fatal(err)
	}
	outside = t.TempDir()
	victim = filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	return Root(ws), dir, outside, victim
}

func TestSafeRemoveInside(t *testing.T) {
	root, dir, _, _ := layout(t)
	if err := SafeRemove(root, dir); err != nil {
		t.Fatalf("SafeRemove() = %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir still exists: %v", err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("root removed: %v", err)
	}
	// Removing again is not an error.
	if err := SafeRemove(root, dir); err != nil {
		t.Errorf("second SafeRemove() = %v", err)
	}
}

func TestSafeRemoveRefuses(t *testing.T) {
	tests := []struct {
		name string
		// dir returns the folder to remove, planting symlinks as needed.
		dir func(t *testing.T, root, outside string) string
	}{
		{"symlink to outside", func(t *testing.T, root, outside string) string {
			link := filepath.Join(root, "evil")
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
		{"path through a symlinked component", func(t *testing.T, root, outside string) string {
			if err := os.Mkdir(filepath.Join(outside, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(root, "hop")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(root, "hop", "sub")
		}},
		{"dotdot escape", func(t *testing.T, root, outside string) string {
			return filepath.Join(root, "..", "..")
		}},
		{"plain outside path", func(t *testing.T, root, outside string) string { return outside }},
		{"the root itself", func(t *testing.T, root, outside string) string { return root }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, kept, outside, victim := layout(t)
			dir := tt.dir(t, root, outside)
			err := SafeRemove(root, dir)
			if !errors.Is(err, ErrOutsideRoot) {
				t.Fatalf("SafeRemove(%s) = %v, want ErrOutsideRoot", dir, err)
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
				t.Errorf("outside file = %q (err %v), want untouched", b, err)
			}
			if _, err := os.Stat(kept); err != nil {
				t.Errorf("attachments folder touched: %v", err)
			}
		})
	}
}

func TestSafeRemoveSymlinkedRootResolves(t *testing.T) {
	// A workspace reached through a symlink (like /tmp on macOS) still
	// removes its own folders.
	realWS := t.TempDir()
	_, _, err := Materialize(realWS, []File{{Name: "a"}}, fixedID("id"))
	if err != nil {
		t.Fatal(err)
	}
	linkWS := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(realWS, linkWS); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(realWS, ".switchboard", "attachments", "id")
	if err := SafeRemove(Root(linkWS), dir); err != nil {
		t.Fatalf("SafeRemove() = %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir still exists: %v", err)
	}
}

func TestSafeRemoveMissingRoot(t *testing.T) {
	outside := t.TempDir()
	err := SafeRemove(filepath.Join(t.TempDir(), "nope"), outside)
	if !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("SafeRemove() = %v, want ErrOutsideRoot", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("outside dir removed: %v", err)
	}
}
