package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/engine"
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
	list := jsonOf[engine.ListResult](c, "sessions", "list", "--json")
	if list.Count != sum.Sessions {
		t.Fatalf("listed %d sessions after importing %d", list.Count, sum.Sessions)
	}
	again := c.ok("import", "openclaw", src)
	mustContain(t, "second import", again.stdout, "imported 0 sessions and 0 messages")

	for _, tt := range []struct{ dir, want string }{
		{filepath.Join(c.dir, "missing"), "no such file or directory"},
		{filepath.Join("..", "openclawimport", "testdata", "garbled"), "sessions.json"},
	} {
		r := c.run("import", "openclaw", tt.dir)
		if r.code != exitError || !strings.Contains(r.stderr, tt.want) {
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
		Disk   int64 `json:"disk"`
		Import struct {
			Sessions int `json:"sessions"`
		} `json:"import"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	if rep.ListAll.N == 0 || rep.Disk == 0 || rep.Import.Sessions == 0 {
		t.Fatalf("report = %s", b)
	}
	if _, err := os.Stat(filepath.Join(c.stateDir(), "switchboard.db")); !os.IsNotExist(err) {
		t.Fatalf("bench touched the state dir: %v", err)
	}
	if r := c.run("bench", "store", "--out", out); r.code != exitUsage || !strings.Contains(r.stderr, "--openclaw-state and --out are required") {
		t.Fatalf("bench without --openclaw-state: exit %d, stderr %q", r.code, r.stderr)
	}
}
