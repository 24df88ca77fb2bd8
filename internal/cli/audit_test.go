package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/audit"
)

func TestAuditListVerifyExport(t *testing.T) {
	c := newCLI(t)
	c.ok("sessions", "patch", "agent:main:notes", "--label", "notes")
	c.ok("sessions", "reset", "agent:main:notes")
	c.ok("spawn", "sum up", "--label", "child")
	recs := jsonOf[[]audit.Record](c, "audit", "list", "--json")
	kinds := map[audit.Kind]int{}
	for _, r := range recs {
		kinds[r.Kind]++
	}
	if kinds[audit.KindAdmin] != 2 || kinds[audit.KindSpawn] != 1 {
		t.Fatalf("records by kind %v: %+v", kinds, recs)
	}
	mustContain(t, "verify", c.ok("audit", "verify").stdout, "ok: ", "records verified")
	out := filepath.Join(c.dir, "audit.jsonl")
	c.ok("audit", "export", "--out", out)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(recs) {
		t.Fatalf("export: %d lines, %d records", len(lines), len(recs))
	}
	exported := make([]audit.Record, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &exported[i]); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	last := exported[len(exported)-1]
	if _, brk := audit.Verify(audit.Anchor{}, audit.Anchor{Seq: last.Seq, Hash: last.Hash}, exported); brk != nil {
		t.Fatalf("the export does not verify on its own: %v", brk)
	}

	// An edit in the database is found, named by its position, with a
	// non-zero exit.
	db, err := sql.Open("sqlite", filepath.Join(c.stateDir(), "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE audit_log SET actor = 'nobody' WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	r := c.run("audit", "verify")
	if r.code == 0 || !strings.Contains(r.stderr, "record 2") {
		t.Fatalf("verify after an edit: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}
