package cli

import (
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	c := newCLI(t)
	r := c.ok("demo")
	mustContain(t, "demo output", r.stdout,
		"1. A chat message to main",
		"echo: hello switchboard",
		"2. main's agent calls sessions_send to agent:main:research",
		"→ sessions_send",
		"[inter-session ← agent:main:main · sessions_send]",
		"research says: On lane scheduling",
		"Thanks! Where is that written down?",
		"In docs/design.md, under 'Runs, lanes and waits': one lane per session.",
		"REPLY_SKIP (silent)",
		"Research note:",
		"outbox: announce to agent:main:research (channel unknown): delivered",
		"3. main's agent spawns a sub-agent",
		"→ sessions_spawn",
		"Lanes keep runs in line",
		"Sub-agent finished: haiku",
		"Status: ok",
		"The sub-agent is done",
		"4. sessions_list and sessions_history",
		"agent:main:research",
		"Done in ",
	)
	for _, kind := range []string{"send", "reply", "announce", "subagent", "inbound"} {
		if !strings.Contains(r.stdout, "\n    "+kind+" ") {
			t.Errorf("demo runs lack a %s run:\n%s", kind, r.stdout)
		}
	}
}

func TestDemoRules(t *testing.T) {
	rules, err := demoRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) < 8 {
		t.Fatalf("demo has %d rules", len(rules))
	}
	c := newCLI(t)
	out := c.ok("demo", "--rules").stdout
	mustContain(t, "demo --rules", out, "Agent-to-agent reply step:", "Agent-to-agent announce step:", "sessions_spawn")
}
