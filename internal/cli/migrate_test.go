package cli

import (
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
