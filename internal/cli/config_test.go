package cli

import (
	"encoding/json"
	"github.com/switchboard-go/switchboard/internal/api"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	c := newCLI(t)
	bad := filepath.Join(c.dir, "bad.json5")
	if err := os.WriteFile(bad, []byte(`{
  session: { scope: "weird", agentToAgent: { maxPingPongTurns: -1 } },
  agents: { list: [ { id: "Bad Id!" } ] },
  bogus: 1,
}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("config", "validate", bad)
	if r.code != exitError {
		t.Fatalf("exit %d, want 1; stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	wantPaths := []string{"bogus: ", "session.scope: ", "session.agentToAgent.maxPingPongTurns: ", "agents.list[0].id: "}
	if len(lines) != len(wantPaths) {
		t.Fatalf("want one problem per line (%d), got:\n%s", len(wantPaths), r.stdout)
	}
	for _, p := range wantPaths {
		mustContain(t, "validate output", r.stdout, p)
	}
	mustContain(t, "validate stderr", r.stderr, "4 problems")

	var out validateOutput
	r = c.run("config", "validate", bad, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != exitError {
		t.Fatalf("--json: exit %d, %v:\n%s", r.code, err, r.stdout)
	}
	if out.Valid || len(out.Problems) != 4 || out.Problems[1].Path != "session.scope" || out.Problems[1].Message == "" {
		t.Fatalf("--json = %+v", out)
	}

	syntax := filepath.Join(c.dir, "syntax.json5")
	if err := os.WriteFile(syntax, []byte("{ session: "), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := c.run("config", "validate", syntax); r.code != exitError || !strings.Contains(r.stdout, "line 1") {
		t.Fatalf("syntax error: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := c.run("config", "validate", filepath.Join(c.dir, "missing.json5")); r.code != exitError || !strings.Contains(r.stderr, "no such file") {
		t.Fatalf("missing file: exit %d, stderr %q", r.code, r.stderr)
	}

	// Without FILE: the state dir's config, which may be missing (defaults).
	mustContain(t, "default validate", c.ok("config", "validate").stdout, "switchboard.json5: ok")
	c.writeConfig(`{ tools: { sessions: { visibility: "all" } } }`)
	mustContain(t, "state dir validate", c.ok("config", "validate").stdout, ": ok")
}

func TestConfigShowMasksSecrets(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{
  // comments are fine
  gateway: { auth: { token: "supersecrettoken123" } },
  models: { providers: { openai: { apiKey: "${MY_KEY}" } } },
}`)
	c.env["MY_KEY"] = "sk-abcdefghijklmnop"
	r := c.ok("config", "show")
	mustContain(t, "config show", r.stdout, "// config: ", `"token": "***`, `"apiKey": "***`, `"visibility": "tree"`)
	for _, secret := range []string{"supersecrettoken123", "sk-abcdefghijklmnop"} {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("config show leaks %q:\n%s", secret, r.stdout)
		}
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(c.ok("config", "show", "--json").stdout), &cfg); err != nil || cfg["session"] == nil {
		t.Fatalf("config show --json is not the config object: %v", err)
	}
}

func TestSpawnAttach(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{ tools: { sessions_spawn: { attachments: { enabled: true } } } }`)
	f := filepath.Join(c.dir, "notes.md")
	if err := os.WriteFile(f, []byte("# notes\nbinary-safe \x00 content"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := jsonOf[api.SpawnResult](c, "spawn", "read the notes", "--attach", f, "--json")
	if res.Attachments == nil || res.Attachments.Count != 1 || res.Attachments.Files[0].Name != "notes.md" {
		t.Fatalf("spawn --attach = %+v", res.Attachments)
	}
}
