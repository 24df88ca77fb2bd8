package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// migrate copies the configured SQLite store into PostgreSQL, says so on a
// second run, refuses a target holding something else, and copies back.
func TestMigrate(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "hello")
	c.ok("chat", "main", "again")
	url := pg.Database(t)

	r := c.ok("migrate", "--to", url)
	if !strings.Contains(r.stdout, "copied 1 sessions, 4 messages, 2 runs") || !strings.Contains(r.stdout, "rows/s") {
		t.Errorf("summary: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "migrate: ") || !strings.Contains(r.stderr, "(100%)") {
		t.Errorf("no plain progress line on a non-terminal stderr: %q", r.stderr)
	}
	r = c.ok("migrate", "--to", url)
	if !strings.Contains(r.stdout, "already holds exactly this copy") {
		t.Errorf("second run: %q", r.stdout)
	}
	out := jsonOf[migrateOutput](c, "--json", "migrate", "--to", url)
	if !out.AlreadyCopied || out.Messages != 4 {
		t.Errorf("--json second run: %+v", out)
	}

	// Something else in the target: refused, exit 1.
	other := newCLI(t)
	other.ok("chat", "main", "different")
	if r := other.run("migrate", "--to", url); r.code != 1 || !strings.Contains(r.stderr, "not empty") {
		t.Errorf("non-empty target: exit %d, stderr %q", r.code, r.stderr)
	}

	// Back to a new SQLite file, with the PostgreSQL store configured.
	back := filepath.Join(t.TempDir(), "back.db")
	pgCLI := newCLI(t)
	pgCLI.env["DATABASE_URL"] = url
	pgCLI.writeConfig(`{store: {driver: "postgres", url: "${DATABASE_URL}"}, transcripts: {mirror: false}}`)
	hist := pgCLI.ok("sessions", "history", "main")
	if !strings.Contains(hist.stdout, "again") {
		t.Errorf("history on the migrated PostgreSQL store lacks the message: %q", hist.stdout)
	}
	r = pgCLI.ok("migrate", "--to", "sqlite:"+back)
	if !strings.Contains(r.stdout, "copied 1 sessions, 4 messages") {
		t.Errorf("back to SQLite: %q", r.stdout)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"migrate"}, 2, "--to is required"},
		{[]string{"migrate", "--to", "mysql://x"}, 2, "not a store"},
		{[]string{"migrate", "--to", url, "--batch", "0"}, 2, "--batch"},
		{[]string{"migrate", "--to", "sqlite:" + filepath.Join(c.stateDir(), "switchboard.db")}, 1, "names the source store"},
		{[]string{"migrate", "--from", "sqlite:/nonexistent/x.db", "--to", "sqlite:" + back + "2"}, 1, "no such file"},
	} {
		r := c.run(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

// migrate refuses, as usage errors naming --to, a SQLite target in a
// missing directory and a postgres URL without a host or database; neither
// needs a database to check.
func TestMigrateRefusesBadTarget(t *testing.T) {
	c := newCLI(t)
	missing := filepath.Join(t.TempDir(), "nonexistent", "dir")
	for _, tc := range []struct {
		to, want string
	}{
		{"sqlite:" + filepath.Join(missing, "x.db"), "--to: directory " + missing + " does not exist"},
		{"postgres://", "--to: postgres URL"},
		{"postgres://db.example.com", "needs a database (postgres://user@host/db)"},
	} {
		r := c.run("migrate", "--to", tc.to)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--to %s: exit %d, stderr %q; want exit 2 and %q", tc.to, r.code, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("migrate created the missing directory")
	}
}

// A gateway with store.driver postgres starts, serves a chat through the
// CLI, and the turn lands in the database: a CLI on another state dir
// (another machine, the same database) reads it.
func TestGatewayOnPostgres(t *testing.T) {
	url := pg.Database(t)
	mirror := t.TempDir()
	cfg := `{store: {driver: "postgres", url: "${DATABASE_URL}"}, transcripts: {dir: "` + mirror + `"}}`
	c := newCLI(t)
	c.env["DATABASE_URL"] = url
	c.writeConfig(cfg)
	_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
	r := c.ok("chat", "main", "over postgres")
	if !strings.Contains(r.stdout, "echo: over postgres") {
		t.Errorf("chat through the gateway: %q", r.stdout)
	}
	if r := stop(); r.code != 0 {
		t.Fatalf("gateway exit %d, stderr %s", r.code, r.stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(mirror, "agents", "main", "sessions", "*.jsonl")); len(m) != 1 {
		t.Errorf("mirror files under transcripts.dir: %v, want 1", m)
	}
	other := newCLI(t)
	other.env["DATABASE_URL"] = url
	other.writeConfig(cfg)
	hist := other.ok("sessions", "history", "main")
	if !strings.Contains(hist.stdout, "over postgres") {
		t.Errorf("history from another state dir: %q", hist.stdout)
	}
}

// The plain progress lines say how far the copy is: 1 of 4 rows is 25 %,
// not the tenth below it.
func TestMigrateProgressPercent(t *testing.T) {
	var buf strings.Builder
	p := newMigrateProgress(&buf, false)
	for _, done := range []int64{0, 1, 3, 4} {
		p.update(done, 4)
	}
	for _, want := range []string{"0/4 rows (0%)", "1/4 rows (25%)", "3/4 rows (75%)", "4/4 rows (100%)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("progress lines %q lack %q", buf.String(), want)
		}
	}
}
