package cli

import (
	"encoding/json"
	"github.com/switchboard-go/switchboard/internal/api"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/openclawimport"
)

func TestImportOpenClaw(t *testing.T) {
	c := newCLI(t)
	src := filepath.Join("..", "openclawimport", "testdata", "openclaw")
	r := c.ok("import", "openclaw", src, "--json")
	var sum importOutput
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("import --json: %v\n%s", err, r.stdout)
	}
	if sum.Agents != 2 || sum.Sessions == 0 || sum.Messages == 0 {
		t.Fatalf("summary = %+v", sum)
	}
	list := jsonOf[api.ListResult](c, "sessions", "list", "--json")
	if list.Count != sum.Sessions {
		t.Fatalf("listed %d sessions after importing %d", list.Count, sum.Sessions)
	}
	again := c.ok("import", "openclaw", src)
	mustContain(t, "second import", again.stdout, "imported 0 sessions and 0 messages")

	// Errors name the user's path and what is wrong with it, never a Go
	// package (no "openclawimport: " prefix).
	garbled := filepath.Join("..", "openclawimport", "testdata", "garbled")
	for _, tt := range []struct{ dir, want string }{
		{filepath.Join(c.dir, "missing"), "import: OpenClaw state dir " + filepath.Join(c.dir, "missing") + " does not exist"},
		{garbled, "import " + garbled + ": " + filepath.Join(garbled, "agents", "main", "sessions", "sessions.json") + ": invalid JSON at line"},
		{c.dir, "is not an OpenClaw state directory"},
	} {
		r := c.run("import", "openclaw", tt.dir)
		if r.code != exitError || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "openclawimport: ") {
			t.Errorf("import %s: exit %d, stderr %q, want %q", tt.dir, r.code, r.stderr, tt.want)
		}
	}
}

func TestBenchStore(t *testing.T) {
	c := newCLI(t)
	out := filepath.Join(c.dir, "bench.json")
	src := filepath.Join("..", "openclawimport", "testdata", "openclaw")
	r := c.ok("bench", "store", "--openclaw-state", src, "--out", out, "--iterations", "2")
	mustContain(t, "bench output", r.stdout, "list all", "history last 50", "report written to "+out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		ListAll struct {
			N int `json:"n"`
		} `json:"listAll"`
		Disk       int64 `json:"disk"`
		MirrorDisk int64 `json:"mirrorDisk"`
		Import     struct {
			Sessions int `json:"sessions"`
		} `json:"import"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	if rep.ListAll.N == 0 || rep.Disk == 0 || rep.MirrorDisk == 0 || rep.Import.Sessions == 0 {
		t.Fatalf("report = %s", b)
	}
	if _, err := os.Stat(filepath.Join(c.stateDir(), "switchboard.db")); !os.IsNotExist(err) {
		t.Fatalf("bench touched the state dir: %v", err)
	}
	if r := c.run("bench", "store", "--out", out); r.code != exitUsage || !strings.Contains(r.stderr, "--openclaw-state and --out are required") {
		t.Fatalf("bench without --openclaw-state: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestImportMirrorOff: with transcripts.mirror false an import writes no
// JSONL file and list rows carry no transcriptPath, while the store holds
// every message (the raw history reads them back); with the default the
// files are there.
func TestImportMirrorOff(t *testing.T) {
	src := filepath.Join("..", "openclawimport", "testdata", "openclaw")
	for _, mirror := range []bool{true, false} {
		c := newCLI(t)
		if !mirror {
			c.writeConfig(`{transcripts: {mirror: false}}`)
		}
		var sum importOutput
		if err := json.Unmarshal([]byte(c.ok("import", "openclaw", src, "--json").stdout), &sum); err != nil || sum.Messages == 0 {
			t.Fatalf("mirror %v: import = %+v, %v", mirror, sum, err)
		}
		files, err := filepath.Glob(filepath.Join(c.stateDir(), "agents", "*", "sessions", "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(files) > 0; got != mirror {
			t.Errorf("mirror %v: %d JSONL files in the state dir", mirror, len(files))
		}
		list := jsonOf[api.ListResult](c, "sessions", "list", "--json")
		var withPath int
		for _, row := range list.Sessions {
			if row.TranscriptPath != "" {
				withPath++
			}
		}
		if (withPath > 0) != mirror {
			t.Errorf("mirror %v: %d of %d rows with a transcriptPath", mirror, withPath, len(list.Sessions))
		}
		var read int
		for _, row := range list.Sessions {
			h := jsonOf[struct {
				Messages []json.RawMessage `json:"messages"`
			}](c, "sessions", "history", row.Key, "--raw", "--include-tools", "--limit", "1000", "--json")
			read += len(h.Messages)
		}
		if read < sum.Messages {
			t.Errorf("mirror %v: read back %d messages of %d imported", mirror, read, sum.Messages)
		}
	}
}

func TestExportOpenClaw(t *testing.T) {
	c := newCLI(t)
	src := filepath.Join("..", "openclawimport", "testdata", "openclaw-2026.9.6")
	c.ok("import", "openclaw", src)
	for _, layout := range []string{"sqlite", "json"} {
		to := filepath.Join(c.dir, "oc-"+layout)
		r := c.ok("export", "openclaw", "--to", to, "--layout", layout, "--json")
		var sum openclawimport.ExportSummary
		if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
			t.Fatalf("export --json: %v\n%s", err, r.stdout)
		}
		if sum.Layout != layout || sum.Agents != 1 || sum.Sessions != 3 || sum.Messages != 8 {
			t.Fatalf("export %s: %+v", layout, sum)
		}
		// The export imports back into a fresh state dir.
		back := newCLI(t)
		mustContain(t, "import of the export", back.ok("import", "openclaw", to).stdout, "imported 3 sessions and 8 messages")

		r = c.run("export", "openclaw", "--to", to)
		if r.code != exitError || !strings.Contains(r.stderr, "target directory is not empty") {
			t.Errorf("export onto the same dir: exit %d, stderr %q", r.code, r.stderr)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "openclaw"}, "--to is required"},
		{[]string{"export", "openclaw", "--to", filepath.Join(c.dir, "x"), "--layout", "xml"}, `--layout "xml": want json or sqlite`},
	} {
		if r := c.run(tt.args...); r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	mustContain(t, "export --help", c.ok("export", "openclaw", "--help").stdout, "--layout", "--to", "not kept")
}
