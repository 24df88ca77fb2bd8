package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// surfaces runs fn once with the engine in-process and once through a
// running gateway of the same state dir: the CLI must answer the same way.
func surfaces(t *testing.T, config string, fn func(t *testing.T, c *cli)) {
	t.Helper()
	for _, remote := range []bool{false, true} {
		name := "in-process"
		if remote {
			name = "gateway"
		}
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			if config != "" {
				c.writeConfig(config)
			}
			if remote {
				_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
				defer func() {
					if r := stop(); r.code != 0 {
						t.Errorf("gateway exit %d: %s", r.code, r.stderr)
					}
				}()
			}
			fn(t, c)
		})
	}
}

// Finding 4: spawn's run timeout reads api.SpawnRunTimeout (a week) on
// both paths.
func TestSpawnRunTimeoutLimit(t *testing.T) {
	surfaces(t, "", func(t *testing.T, c *cli) {
		res := jsonOf[api.SpawnResult](c, "spawn", "two days", "--run-timeout", "172800", "--json")
		if res.Status != "accepted" || res.RunID == "" {
			t.Fatalf("spawn --run-timeout 172800 = %+v", res)
		}
		week := api.SpawnRunTimeout.Max
		r := c.run("spawn", "too long", "--run-timeout", "604801")
		if r.code != exitUsage || !strings.Contains(r.stderr, "at most 604800") || week != 604800 {
			t.Fatalf("spawn past a week: exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

// Finding 5: a malformed --as key and an unknown agent are refused the
// same way with and without a gateway, exit 1.
func TestAsRefusedEverywhere(t *testing.T) {
	surfaces(t, "", func(t *testing.T, c *cli) {
		for _, tt := range []struct{ as, want string }{
			{"bad key", `requester session "bad key"`},
			{"agent:ghost:main", `unknown agent id "ghost"`},
		} {
			for _, args := range [][]string{
				{"sessions", "list"}, {"sessions", "history", "main"}, {"agents", "list"}, {"send", "main", "hi"},
			} {
				r := c.run(append(args, "--as", tt.as)...)
				if r.code != exitError || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
					t.Errorf("%v --as %q: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, tt.as, r.code, r.stdout, r.stderr, tt.want)
				}
			}
		}
	})
}

// Finding 6: runs cancel says what happened.
func TestRunsCancelSaysWhatHappened(t *testing.T) {
	surfaces(t, `{ models: { providers: { script: { rules: [ { when: { message: "^slow" }, reply: "late", delayMs: 20000 } ] } } } }`, func(t *testing.T, c *cli) {
		done := jsonOf[chatOutput](c, "chat", "main", "quick", "--json")
		if r := c.ok("runs", "cancel", done.RunID); r.stdout != "already ended: ok\n" {
			t.Fatalf("cancel of an ended run = %q", r.stdout)
		}
		res := jsonOf[api.CancelResult](c, "runs", "cancel", done.RunID, "--json")
		if res.Cancelled || !res.AlreadyEnded || res.Status != domain.RunOK || res.ID != done.RunID {
			t.Fatalf("cancel --json of an ended run = %+v", res)
		}
		if r := c.ok("runs", "cancel", done.RunID, "--json"); !strings.Contains(r.stdout, `"alreadyEnded": true`) {
			t.Fatalf("cancel --json of an ended run does not say it had ended: %s", r.stdout)
		}
		// A run that has not ended: in-process it is recorded (--detach) and
		// cancelled by the next command; through the gateway it is running.
		slow := strings.TrimSpace(c.ok("chat", "main", "slow one", "--wait", "0", "--detach").stdout)
		if res := jsonOf[api.CancelResult](c, "runs", "cancel", slow, "--json"); !res.Cancelled || res.AlreadyEnded {
			t.Fatalf("cancel --json of a live run = %+v", res)
		}
		if r := c.ok("runs", "cancel", slow); r.stdout != "already ended: cancelled\n" {
			t.Fatalf("second cancel = %q", r.stdout)
		}
	})
}

// Finding 7: a missing --config or $SWITCHBOARD_CONFIG file is an error;
// the default path missing means defaults.
func TestMissingConfigFile(t *testing.T) {
	c := newCLI(t)
	missing := filepath.Join(c.dir, "nope.json5")
	r := c.run("sessions", "list", "--config", missing)
	if r.code != exitError || !strings.Contains(r.stderr, "nope.json5") || !strings.Contains(r.stderr, "does not exist") {
		t.Fatalf("--config missing: exit %d, stderr %q", r.code, r.stderr)
	}
	c.env["SWITCHBOARD_CONFIG"] = missing
	r = c.run("chat", "main", "hi")
	if r.code != exitError || !strings.Contains(r.stderr, "$SWITCHBOARD_CONFIG") {
		t.Fatalf("$SWITCHBOARD_CONFIG missing: exit %d, stderr %q", r.code, r.stderr)
	}
	delete(c.env, "SWITCHBOARD_CONFIG")
	c.ok("sessions", "list") // the default path is missing too: defaults
	if _, err := os.Stat(filepath.Join(c.stateDir(), "switchboard.json5")); err == nil {
		t.Fatal("the default config should be missing in this test")
	}
}

// Finding 7: a UUID-shaped prefix is a sessionId lookup; a visible key
// without a session says so.
func TestHistoryReferences(t *testing.T) {
	surfaces(t, "", func(t *testing.T, c *cli) {
		c.ok("chat", "main", "hi")
		r := c.run("sessions", "history", "d386f8db-6fdf-4c7e")
		if r.code != exitError || !strings.Contains(r.stderr, "d386f8db-6fdf-4c7e") {
			t.Errorf("history of an unknown sessionId prefix: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if r := c.ok("sessions", "history", "agent:main:foo"); r.stdout != "no session yet for agent:main:foo\n" {
			t.Errorf("history of a key without a session = %q", r.stdout)
		}
		h := jsonOf[api.HistoryResult](c, "sessions", "history", "agent:main:foo", "--json")
		if h.Messages == nil || len(h.Messages) != 0 {
			t.Errorf("--json history of a key without a session = %+v, want messages: []", h)
		}
	})
}

// Finding 9: a refused chat command exits 1.
func TestRefusedCommandExits1(t *testing.T) {
	surfaces(t, "", func(t *testing.T, c *cli) {
		r := c.run("chat", "main", "/send maybe")
		if r.code != exitError || !strings.Contains(r.stderr, "usage: /send on|off|inherit") {
			t.Fatalf("/send maybe: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if r := c.ok("chat", "main", "/send off"); !strings.Contains(r.stdout, "Send policy set to off") {
			t.Fatalf("/send off = %q", r.stdout)
		}
	})
}

// Finding 9: one exit code mapping.
func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{usageErr("x", ""), exitUsage},
		{&exitErr{code: exitError}, exitError},
		{domain.Invalid("refused"), exitError},
		{os.ErrNotExist, exitError},
	} {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// Finding 10: human output and --json print canonical keys, as the
// requester sees them.
func TestCanonicalKeys(t *testing.T) {
	surfaces(t, `{ agents: { list: [ { id: "alpha", default: true }, { id: "beta" } ] }, tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } } }`, func(t *testing.T, c *cli) {
		c.ok("chat", "main", "hi")
		c.ok("chat", "agent:beta:main", "hello")
		list := c.ok("sessions", "list")
		mustContain(t, "sessions list", list.stdout, "agent:alpha:main", "agent:beta:main")
		for _, line := range strings.Split(list.stdout, "\n") {
			if strings.HasPrefix(line, "main ") {
				t.Errorf("sessions list prints a bare main:\n%s", list.stdout)
			}
		}
		asBeta := jsonOf[api.ListResult](c, "sessions", "list", "--as", "agent:beta:main", "--json")
		for _, s := range asBeta.Sessions {
			if s.Key == "main" {
				t.Errorf("--as beta --json row key main: %+v", asBeta.Sessions)
			}
		}
		mustContain(t, "history", c.ok("sessions", "history", "main").stdout, "agent:alpha:main  (sessionId")
		h := jsonOf[api.HistoryResult](c, "sessions", "history", "main", "--as", "agent:beta:main", "--json")
		if h.SessionKey != "agent:beta:main" {
			t.Errorf("history main --as beta = %q, want agent:beta:main", h.SessionKey)
		}
		send := jsonOf[api.SendResult](c, "send", "main", "ping", "--as", "agent:beta:main", "--json")
		if send.SessionKey != "agent:beta:main" {
			t.Errorf("send main --as beta: sessionKey %q, want agent:beta:main (%+v)", send.SessionKey, send)
		}
	})
}
