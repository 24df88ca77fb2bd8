package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

func TestSessionsStatusCommand(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "hello")
	card := jsonOf[api.StatusResult](c, "sessions", "status", "--json")
	if card.Status != "ok" || card.SessionKey != "agent:main:main" || card.Model != "script" || card.Tokens.Total == 0 {
		t.Fatalf("status --json = %+v", card)
	}
	if r := c.ok("sessions", "status", "main"); !strings.Contains(r.stdout, "model:") || !strings.Contains(r.stdout, "queued runs:") {
		t.Fatalf("status = %q", r.stdout)
	}
	if r := c.run("sessions", "status", "main", "--model", "nope/x"); r.code != exitError || !strings.Contains(r.stderr, "nope/x") {
		t.Fatalf("unknown model: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := c.run("sessions", "status", "main", "--model", ""); r.code != exitUsage {
		t.Fatalf("--model \"\": exit %d, want %d", r.code, exitUsage)
	}
	if r := c.run("sessions", "status", "a", "b"); r.code != exitUsage {
		t.Fatalf("two keys: exit %d", r.code)
	}
	sw := jsonOf[api.StatusResult](c, "sessions", "status", "main", "--model", "script", "--json")
	if !sw.ModelChanged || sw.ModelOverride != "script" {
		t.Fatalf("--model script = %+v", sw)
	}
	back := jsonOf[api.StatusResult](c, "sessions", "status", "main", "--model", "default", "--json")
	if back.ModelOverride != "" {
		t.Fatalf("--model default = %+v", back)
	}
}

func TestSendModeAndSpawnContextFlags(t *testing.T) {
	c := newCLI(t)
	res := jsonOf[api.SendResult](c, "send", "agent:main:inbox", "fyi", "--mode", "notify", "--json")
	if res.Status != "ok" || res.MessageID == "" || res.RunID != "" {
		t.Fatalf("send --mode notify = %+v", res)
	}
	if r := c.run("send", "agent:main:inbox", "x", "--mode", "loud"); r.code != exitUsage || !strings.Contains(r.stderr, "--mode must be followup, steer, notify") {
		t.Fatalf("bad --mode: exit %d, stderr %q", r.code, r.stderr)
	}
	steer := jsonOf[api.SendResult](c, "send", "agent:main:inbox", "go", "--mode", "steer", "--json")
	if steer.Status != "ok" || steer.Reply != "echo: go" {
		t.Fatalf("send --mode steer to an idle session = %+v; want the followup's reply", steer)
	}
	c.ok("chat", "main", "remember the number 7")
	sp := jsonOf[api.SpawnResult](c, "spawn", "go on", "--context", "fork", "--json")
	if sp.Status != "accepted" {
		t.Fatalf("spawn --context fork = %+v", sp)
	}
	if r := c.run("spawn", "x", "--context", "shared"); r.code != exitUsage || !strings.Contains(r.stderr, "--context must be isolated or fork") {
		t.Fatalf("bad --context: exit %d, stderr %q", r.code, r.stderr)
	}
	list := jsonOf[api.ListResult](c, "sessions", "list", "--json")
	forked := 0
	for _, s := range list.Sessions {
		if s.ForkedFromParent {
			forked++
		}
	}
	if forked != 1 {
		t.Fatalf("forked rows = %d, want 1", forked)
	}
}
