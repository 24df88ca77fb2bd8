package transcript

import (
	"os"
	"slices"
	"testing"
)

// TestReconcileFull: the whole file is checked against the store, not
// only its tail. A file missing a message in the middle, or holding one
// out of order, keeps a tail the store knows — Reconcile leaves it — and
// is rewritten in the store's order; a file the store did not write is
// left alone.
func TestReconcileFull(t *testing.T) {
	store := msgsWithIDs("a", "b", "c", "d")
	cases := []struct {
		name    string
		file    []string // nil: no file
		extra   string   // a line that is not a message, appended after file
		want    SyncResult
		wantIDs []string
	}{
		{"missing file is created", nil, "", SyncCreated, []string{"a", "b", "c", "d"}},
		{"missing tail is appended", []string{"a", "b"}, "", SyncAppended, []string{"a", "b", "c", "d"}},
		{"complete file is left", []string{"a", "b", "c", "d"}, "", SyncUnchanged, []string{"a", "b", "c", "d"}},
		{"missing middle is rewritten", []string{"a", "c", "d"}, "", SyncRewritten, []string{"a", "b", "c", "d"}},
		{"two missing in the middle", []string{"a", "d"}, "", SyncRewritten, []string{"a", "b", "c", "d"}},
		{"out of order is rewritten", []string{"a", "c", "d", "b"}, "", SyncRewritten, []string{"a", "b", "c", "d"}},
		{"foreign message is left", []string{"a", "x", "d"}, "", SyncDiverged, []string{"a", "x", "d"}},
		{"imported lines stop a rewrite", []string{"a", "c"}, `{"type":"compaction","id":"k","summary":"s"}`, SyncDiverged, []string{"a", "c"}},
		{"imported lines still get a tail", []string{"a", "b"}, `{"type":"compaction","id":"k","summary":"s"}`, SyncAppended, []string{"a", "b", "c", "d"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New(t.TempDir(), nil)
			path := m.Path("main", "s")
			if tc.file != nil {
				if err := m.Append("main", "s", msgsWithIDs(tc.file...)); err != nil {
					t.Fatal(err)
				}
				if err := m.Close(); err != nil {
					t.Fatal(err)
				}
				if tc.extra != "" {
					f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := f.WriteString(tc.extra + "\n"); err != nil {
						t.Fatal(err)
					}
					f.Close()
				}
			}
			var before []byte
			if tc.file != nil {
				before, _ = os.ReadFile(path)
			}
			res, err := m.ReconcileFull("main", "s", store)
			if err != nil || res != tc.want {
				t.Fatalf("ReconcileFull = %v, %v; want %v", res, err, tc.want)
			}
			if got := fileIDs(t, path); !slices.Equal(got, tc.wantIDs) {
				t.Fatalf("file ids = %v, want %v", got, tc.wantIDs)
			}
			if tc.file != nil {
				after, _ := os.ReadFile(path)
				// The header is the file's own, not a new one.
				if i, j := slices.Index(before, '\n'), slices.Index(after, '\n'); string(before[:i]) != string(after[:j]) {
					t.Fatalf("header changed:\n%s\n%s", before[:i], after[:j])
				}
				fi, err := os.Stat(path)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("mode = %v, %v; want 0600", fi.Mode().Perm(), err)
				}
			}
			// An append after the rewrite goes to the new file.
			if err := m.Append("main", "s", msgsWithIDs("e")); err != nil {
				t.Fatal(err)
			}
			if got := fileIDs(t, path); got[len(got)-1] != "e" {
				t.Fatalf("after append: %v", got)
			}
			m.Close()
		})
	}
}
