package transcript

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func msgsWithIDs(ids ...string) []domain.Message {
	var out []domain.Message
	parent := ""
	for _, id := range ids {
		out = append(out, domain.Message{ID: id, ParentID: parent, Role: "user", Content: domain.TextContent("m " + id), Timestamp: 1})
		parent = id
	}
	return out
}

func fileIDs(t *testing.T, path string) []string {
	t.Helper()
	_, entries, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if e.Type == TypeMessage {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// TestRemovalWinsOverLateAppend is the `cleanup: "delete"` race made
// deterministic: the run's mirror append arrives after the session's
// transcript was removed (or archived by a reset). It must not create
// the file again.
func TestRemovalWinsOverLateAppend(t *testing.T) {
	for _, op := range []string{"remove", "archive"} {
		t.Run(op, func(t *testing.T) {
			m := New(t.TempDir(), nil)
			if err := m.Append("main", "child", msgsWithIDs("a1")); err != nil {
				t.Fatal(err)
			}
			var err error
			if op == "remove" {
				err = m.Remove("main", "child")
			} else {
				err = m.Archive("main", "child", time.Unix(1, 0))
			}
			if err != nil {
				t.Fatal(err)
			}
			// The late append of the run that just ended, then a reconcile.
			if err := m.Append("main", "child", msgsWithIDs("a2")); err != nil {
				t.Fatal(err)
			}
			if res, err := m.Reconcile("main", "child", msgsWithIDs("a1", "a2")); err != nil || res != SyncSkipped {
				t.Fatalf("reconcile after %s = %v, %v; want skipped", op, res, err)
			}
			if _, err := os.Stat(m.Path("main", "child")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("transcript recreated after %s: %v", op, err)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReconcile(t *testing.T) {
	store := msgsWithIDs("a", "b", "c", "d")
	cases := []struct {
		name    string
		file    []string // nil: no file
		torn    bool     // a partial last line
		want    SyncResult
		wantIDs []string
	}{
		{"missing file is created", nil, false, SyncCreated, []string{"a", "b", "c", "d"}},
		{"missing tail is appended", []string{"a", "b"}, false, SyncAppended, []string{"a", "b", "c", "d"}},
		{"torn last line is completed", []string{"a", "b"}, true, SyncAppended, []string{"a", "b", "c", "d"}},
		{"complete file is left", []string{"a", "b", "c", "d"}, false, SyncUnchanged, []string{"a", "b", "c", "d"}},
		{"foreign file is left", []string{"x", "y"}, false, SyncDiverged, []string{"x", "y"}},
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
				if tc.torn {
					f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString(`{"type":"message","id":"c","mess`)
					f.Close()
				}
			}
			last, exists, err := m.LastMessageID("main", "s")
			if err != nil || exists != (tc.file != nil) || (tc.file != nil && last != tc.file[len(tc.file)-1]) {
				t.Fatalf("LastMessageID = %q %v %v", last, exists, err)
			}
			res, err := m.Reconcile("main", "s", store)
			if err != nil || res != tc.want {
				t.Fatalf("Reconcile = %v, %v; want %v", res, err, tc.want)
			}
			got := fileIDs(t, path)
			if len(got) != len(tc.wantIDs) {
				t.Fatalf("file ids = %v, want %v", got, tc.wantIDs)
			}
			for i := range got {
				if got[i] != tc.wantIDs[i] {
					t.Fatalf("file ids = %v, want %v", got, tc.wantIDs)
				}
			}
			m.Close()
		})
	}
}

// TestReconcileRebuildsAFileWithoutALine: a SIGKILL between a file's
// creation and its first write leaves it empty (or with one torn line).
// The start-time repair must write it whole: taken as existing, it could
// not be read (no header), and the next append would have written a
// header and its own messages into it, without the earlier ones.
func TestReconcileRebuildsAFileWithoutALine(t *testing.T) {
	for name, content := range map[string]string{"empty": "", "torn header": `{"type":"session","vers`} {
		t.Run(name, func(t *testing.T) {
			m := New(t.TempDir(), nil)
			path := m.Path("main", "s1")
			if err := os.MkdirAll(m.Dir("main"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, exists, err := m.LastMessageID("main", "s1"); err != nil || exists {
				t.Fatalf("LastMessageID: exists %v, %v; want a file without a line taken as missing", exists, err)
			}
			res, err := m.Reconcile("main", "s1", msgsWithIDs("a1", "a2"))
			if err != nil || res != SyncCreated {
				t.Fatalf("Reconcile = %v, %v; want %v", res, err, SyncCreated)
			}
			if err := m.Append("main", "s1", msgsWithIDs("a3")[0:1]); err != nil {
				t.Fatal(err)
			}
			if got := fileIDs(t, path); len(got) != 3 || got[0] != "a1" || got[1] != "a2" || got[2] != "a3" {
				t.Fatalf("file holds %v, want [a1 a2 a3]", got)
			}
		})
	}
}
