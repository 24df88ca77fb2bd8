package attachments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fixedID(id string) func() string { return func() string { return id } }

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestMaterialize(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "agents", "main", "workspace") // parents do not exist yet
	files := []File{{Name: "a.txt", Data: []byte("hello")}, {Name: "b.bin", Data: []byte{0, 1, 2}}}
	r, dir, err := Materialize(ws, files, fixedID("1234"))
	if err != nil {
		t.Fatalf("Materialize() error = %v", err)
	}
	want := Receipt{
		Count:      2,
		TotalBytes: 8,
		Files: []FileReceipt{
			{Name: "a.txt", Bytes: 5, Sha256: sha("hello")},
			{Name: "b.bin", Bytes: 3, Sha256: sha("\x00\x01\x02")},
		},
		RelDir: ".switchboard/attachments/1234",
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("receipt mismatch (-want +got):\n%s", diff)
	}
	if wantDir := filepath.Join(ws, ".switchboard", "attachments", "1234"); dir != wantDir {
		t.Errorf("dir = %q, want %q", dir, wantDir)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v (err %v), want 0700", st.Mode().Perm(), err)
	}
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		got, err := os.ReadFile(p)
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("%s = %q (err %v), want %q", f.Name, got, err, f.Data)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v (err %v), want 0600", f.Name, st.Mode().Perm(), err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, ".manifest.json"))
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	var m Receipt
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest JSON: %v", err)
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("manifest mismatch (-want +got):\n%s", diff)
	}

	// A second spawn with the same id must not reuse or delete the folder.
	if _, _, err := Materialize(ws, files, fixedID("1234")); err == nil {
		t.Fatal("Materialize() with an existing folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Errorf("existing folder was touched: %v", err)
	}
}

func TestMaterializeNoFiles(t *testing.T) {
	r, _, err := Materialize(t.TempDir(), nil, fixedID("x"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	if want := `{"count":0,"totalBytes":0,"files":[],"relDir":".switchboard/attachments/x"}`; string(b) != want {
		t.Errorf("receipt JSON = %s, want %s", b, want)
	}
}

func TestMaterializeRefusesBadInput(t *testing.T) {
	tests := []struct {
		name  string
		id    string
		files []File
	}{
		{"bad id", "../x", nil},
		{"empty id", "", nil},
		{"bad name", "ok", []File{{Name: "../../etc/passwd"}}},
		{"manifest name", "ok", []File{{Name: ".manifest.json"}}},
		{"duplicate", "ok", []File{{Name: "a"}, {Name: "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			if _, _, err := Materialize(ws, tt.files, fixedID(tt.id)); err == nil {
				t.Fatal("Materialize() succeeded")
			}
			if _, err := os.Stat(filepath.Join(ws, ".switchboard", "attachments", "ok")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("folder left behind: %v", err)
			}
		})
	}
}

func TestMaterializeRootIsAFile(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".switchboard"), 0o700); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(ws, ".switchboard", "attachments")
	if err := os.WriteFile(root, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Materialize(ws, []File{{Name: "a", Data: []byte("x")}}, fixedID("id")); err == nil {
		t.Fatal("Materialize() over a file root succeeded")
	}
	if b, err := os.ReadFile(root); err != nil || string(b) != "keep" {
		t.Errorf("root file = %q (err %v), want it untouched", b, err)
	}
}

func TestMaterializeRemovesPartialFolder(t *testing.T) {
	ws := t.TempDir()
	boom := errors.New("disk full")
	failAfterOne := func(r *os.Root, relDir string, files []File) (Receipt, error) {
		if err := writeExclusive(r, relDir+"/"+files[0].Name, files[0].Data); err != nil {
			return Receipt{}, err
		}
		return Receipt{}, boom
	}
	_, dir, err := materialize(ws, []File{{Name: "a", Data: []byte("x")}, {Name: "b"}}, fixedID("id"), failAfterOne)
	if !errors.Is(err, boom) || dir != "" {
		t.Fatalf("materialize() = %q, %v; want \"\", %v", dir, err, boom)
	}
	if _, err := os.Stat(filepath.Join(ws, ".switchboard", "attachments", "id")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("partial folder left behind: %v", err)
	}
}

func TestMaterializeRefusesSymlinkedRoot(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, ".switchboard")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Materialize(ws, []File{{Name: "a", Data: []byte("x")}}, fixedID("id")); err == nil {
		t.Fatal("Materialize() through a symlink leading outside the workspace succeeded")
	}
	entries, err := os.ReadDir(outside)
	if err != nil || len(entries) != 0 {
		t.Errorf("outside dir has %d entries (err %v), want none", len(entries), err)
	}
}
