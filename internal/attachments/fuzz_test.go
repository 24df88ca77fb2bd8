package attachments

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/textcheck"
)

// FuzzName decodes and writes one attachment with a fuzzed name (and
// encoding and content): nothing panics; a refused name gets
// attachments_invalid_name with the name escaped; an accepted name
// follows textcheck's rule, and its file is written exactly where the
// receipt says — inside the new attachments folder, never elsewhere in
// the workspace.
func FuzzName(f *testing.F) {
	for _, s := range []struct{ name, enc, content string }{
		{"notes.txt", "", "hello"}, {"../escape.txt", "", "x"}, {"..", "", ""}, {"a/b", "", ""}, {`a\b`, "", ""},
		{"/etc/passwd", "", ""}, {".manifest.json", "", ""}, {" spaced.md ", "utf8", "x"}, {"a\x00b", "", ""},
		{"evil\u202egnp.exe", "", ""}, {"c1\u0085", "", ""}, {"\xff", "", ""}, {"data.bin", "base64", "AAEC"},
		{"data.bin", "base64", "@@@="}, {strings.Repeat("é", 200), "", ""}, {"con", "", ""}, {".hidden", "", ""},
		{"a:b", "", ""}, {"~", "", ""}, {"x", "rot13", ""},
	} {
		f.Add(s.name, s.enc, s.content)
	}
	lim := Limits{MaxFiles: 2, MaxFileBytes: 1 << 10, MaxTotalBytes: 2 << 10}
	f.Fuzz(func(t *testing.T, name, enc, content string) {
		files, err := Decode([]Spec{{Name: name, Content: content, Encoding: enc}}, lim)
		if err != nil {
			msg := err.Error()
			if strings.HasPrefix(msg, "attachments_invalid_name") && textcheck.Problem(msg) != "" {
				t.Fatalf("the refusal of %q carries unsafe characters: %q", name, msg)
			}
			return
		}
		got := files[0].Name
		if p := textcheck.Problem(got); p != "" || got != strings.TrimSpace(name) {
			t.Fatalf("accepted name %q (from %q): %s", got, name, p)
		}
		ws := t.TempDir()
		rec, dir, err := Materialize(ws, files, func() string { return "fuzz" })
		if err != nil {
			return // a name the file system refuses (too long, reserved) is an error, not an escape
		}
		want := filepath.Join(Root(ws), "fuzz")
		if dir != want || len(rec.Files) != 1 {
			t.Fatalf("folder %q, receipt %+v; want %q with one file", dir, rec, want)
		}
		path := filepath.Join(dir, rec.Files[0].Name)
		if filepath.Dir(path) != want {
			t.Fatalf("name %q resolves to %q, outside %q", got, path, want)
		}
		err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if filepath.Dir(p) != want {
				t.Errorf("name %q wrote %q outside the attachments folder", got, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("the receipt's file is missing: %v", err)
		}
	})
}
