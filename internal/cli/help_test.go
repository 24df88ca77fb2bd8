package cli

import (
	"regexp"
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	c := newCLI(t)
	root := c.ok("--help")
	for _, cmd := range []string{"chat KEY MESSAGE", "send KEY MESSAGE", "spawn TASK", "sessions list", "sessions history",
		"sessions patch", "sessions reset", "sessions delete", "agents list", "runs get", "runs wait", "runs cancel",
		"runs list", "outbox list", "gateway", "mcp", "demo", "config show", "config validate", "import openclaw",
		"bench store", "bench chat", "bench gateway", "migrate", "sessions status", "sessions_yield", "session_status", "version", "--state-dir", "--config", "--json", "--verbose", "--detach"} {
		mustContain(t, "switchboard --help", root.stdout, cmd)
	}
	for _, args := range [][]string{{"help", "sessions", "list"}, {"sessions", "list", "--help"}, {"sessions", "list", "-h"}, {"--help", "sessions", "list"}} {
		r := c.ok(args...)
		mustContain(t, strings.Join(args, " "), r.stdout, "switchboard sessions list", "--limit N", "--kinds KINDS", "Examples:", "switchboard sessions list --kinds")
	}
	group := c.ok("help", "runs")
	mustContain(t, "help runs", group.stdout, "switchboard runs wait RUNID", "switchboard runs cancel RUNID")
	if r := c.ok("help"); !strings.Contains(r.stdout, "Commands:") {
		t.Errorf("help without a command should print the overview:\n%s", r.stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no command given"},
		{[]string{"chta"}, `unknown command "chta" (did you mean "chat"?)`},
		{[]string{"sessions"}, "switchboard sessions: which one? (list, history, search, status, patch, reset, delete)"},
		{[]string{"sessions", "lst"}, `switchboard sessions: unknown command "lst" (did you mean "list"?)`},
		{[]string{"sessions", "list", "--bogus"}, "switchboard sessions list: unknown flag --bogus"},
		{[]string{"--bogus", "version"}, "unknown flag --bogus"},
		{[]string{"sessions", "list", "--limit", "-1"}, "--limit must be at least 1 (got -1)"},
		{[]string{"sessions", "list", "--limit", "many"}, `--limit must be a whole number (got "many")`},
		{[]string{"sessions", "list", "--messages", "-2"}, "--messages must be at least 0"},
		{[]string{"sessions", "list", "--kinds", "main,weird"}, `--kinds: unknown kind "weird"`},
		{[]string{"sessions", "list", "extra"}, `unexpected argument "extra"`},
		{[]string{"sessions", "history"}, "missing KEY|SESSIONID"},
		{[]string{"sessions", "history", "main", "--limit", "-3"}, "--limit must be at least 1"},
		// A flag followed by another flag is missing its value (finding 9).
		{[]string{"sessions", "list", "--state-dir", "--json"}, "flag --state-dir needs a value"},
		{[]string{"--state-dir", "--json", "sessions", "list"}, "flag --state-dir needs a value"},
		{[]string{"send", "main", "hi", "--as"}, "flag --as needs a value"},
		// Limits come from internal/api: a run timeout past a week is refused.
		{[]string{"spawn", "x", "--run-timeout", "604801"}, "--run-timeout must be at most 604800 seconds"},
		{[]string{"sessions", "patch", "main"}, "nothing to change"},
		{[]string{"sessions", "patch", "main", "--send-policy", "maybe"}, "--send-policy must be allow, deny or inherit"},
		{[]string{"sessions", "patch", "main", "--label", "x", "--clear-label"}, "--label and --clear-label cannot be combined"},
		{[]string{"sessions", "patch", "main", "--send-policy", "inherit", "--clear-send-policy"}, "--send-policy and --clear-send-policy cannot be combined"},
		// An explicitly empty value is never "clear": the flag is named.
		{[]string{"sessions", "patch", "main", "--model", ""}, `--model: empty value "" (to remove the setting, use --clear-model)`},
		{[]string{"sessions", "patch", "main", "--send-policy", ""}, "--send-policy: empty value"},
		{[]string{"sessions", "patch", "main", "--thinking", "  "}, "--thinking: empty value"},
		{[]string{"sessions", "patch", "main", "--verbose-level", ""}, "--verbose-level: empty value"},
		{[]string{"sessions", "patch", "main", "--verbose-level", "on", "--clear-verbose-level"}, "--verbose-level and --clear-verbose-level cannot be combined"},
		{[]string{"sessions", "patch", "main", "--label", ""}, "--label: empty value"},
		{[]string{"sessions", "patch", "main", "--model", "", "--clear-model"}, "--model: empty value"},
		{[]string{"chat", "main"}, "chat: missing MESSAGE\n"},
		{[]string{"chat"}, "missing KEY and MESSAGE"},
		{[]string{"chat", "main", "hi", "--wait", "-5"}, "--wait must be at least 0"},
		// --best-effort-deliver only loosens --deliver; alone it was silently ignored.
		{[]string{"chat", "main", "hi", "--best-effort-deliver"}, "--best-effort-deliver needs --deliver"},
		// Only what is missing is named: KEY was given (trial 8).
		{[]string{"send", "main"}, "send: missing MESSAGE\n"},
		{[]string{"send"}, "missing KEY and MESSAGE"},
		{[]string{"spawn"}, "missing TASK"},
		{[]string{"spawn", "x", "--cleanup", "later"}, "--cleanup must be delete or keep"},
		{[]string{"spawn", "x", "--thinking", "deep"}, "--thinking must be off, minimal, low, medium or high"},
		{[]string{"runs", "list", "--status", "done"}, `--status: unknown status "done"`},
		{[]string{"runs", "wait"}, "missing RUNID"},
		{[]string{"outbox", "list", "--status", "lost"}, "--status must be pending, delivered or failed"},
		{[]string{"version", "now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := c.run(tt.args...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, exitUsage, r.stderr)
			}
			mustContain(t, "stderr", r.stderr, tt.want, "Usage:")
			if r.stdout != "" {
				t.Errorf("stdout should be empty on usage errors, got:\n%s", r.stdout)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	c := newCLI(t)
	mustContain(t, "version", c.ok("version").stdout, "switchboard ", "go: go1.", "commit:")
	v := jsonOf[versionInfo](c, "version", "--json")
	if v.Version == "" || !strings.HasPrefix(v.GoVersion, "go1.") {
		t.Errorf("version --json = %+v", v)
	}
}

// Every flag's help names its value (`--rate N`, not the flag package's
// `--rate STRING` or `--clients VALUE`), so a new user knows what to pass.
func TestHelpFlagsNameTheirValues(t *testing.T) {
	c := newCLI(t)
	generic := regexp.MustCompile(`--[a-z-]+ (VALUE|STRING|INT|UINT|FLOAT|DURATION)\b`)
	for _, cmd := range []string{"chat", "send", "spawn", "sessions list", "sessions history", "sessions status",
		"sessions patch", "runs list", "runs wait", "gateway", "mcp", "migrate", "bench store", "bench chat",
		"bench gateway", "import openclaw", "agents list", "outbox list"} {
		r := c.ok(append(strings.Fields(cmd), "--help")...)
		if m := generic.FindAllString(r.stdout, -1); len(m) > 0 {
			t.Errorf("switchboard %s --help: flags without a value name: %v", cmd, m)
		}
	}
}
