package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/store/pgtest"
)

// pg is the PostgreSQL cluster of this test binary (started by the first
// test that needs one, stopped before goleak looks for leaks).
var pg pgtest.Shared

func TestMain(m *testing.M) { goleak.VerifyTestMain(withPG{m}) }

// withPG runs the tests and then stops the cluster.
type withPG struct{ m *testing.M }

func (w withPG) Run() int { return pg.Main(w.m) }

// result is what one CLI invocation did.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the command line against a state dir, with a clean
// environment (no gateway token, HOME inside the test's temp dir).
type cli struct {
	t   *testing.T
	dir string
	env map[string]string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	dir := t.TempDir()
	return &cli{t: t, dir: dir, env: map[string]string{
		"SWITCHBOARD_STATE_DIR": filepath.Join(dir, "state"),
		"HOME":                  filepath.Join(dir, "home"),
	}}
}

func (c *cli) stateDir() string { return c.env["SWITCHBOARD_STATE_DIR"] }

// writeConfig writes the state dir's config file.
func (c *cli) writeConfig(json5 string) {
	c.t.Helper()
	if err := os.MkdirAll(c.stateDir(), 0o700); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.stateDir(), "switchboard.json5"), []byte(json5), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cli) run(args ...string) result {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := Main(ctx, args, func(k string) string { return c.env[k] }, strings.NewReader(""), &out, &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// ok runs a command that must succeed.
func (c *cli) ok(args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("switchboard %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// jsonOf runs a command that must succeed and decodes its JSON output.
func jsonOf[T any](c *cli, args ...string) T {
	c.t.Helper()
	r := c.ok(args...)
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		c.t.Fatalf("switchboard %s: output is not JSON (%v):\n%s", strings.Join(args, " "), err, r.stdout)
	}
	return v
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}
