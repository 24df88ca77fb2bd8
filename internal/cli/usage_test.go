package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

// TestUsageCommand: `usage` sums what chats and a budgeted spawn spent,
// by agent, session and model, as a table and as JSON; the sessions table
// shows the spawn's budget and tree usage.
func TestUsageCommand(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "hello there")
	c.ok("spawn", "summarize", "--label", "kid", "--budget-tokens", "5000", "--budget-seconds", "600")
	res := jsonOf[api.UsageResult](c, "usage", "--json")
	if res.By != "agent" || len(res.Groups) != 1 || res.Groups[0].Key != "main" || res.Total.InputTokens <= 0 || res.Total.OutputTokens <= 0 || res.Total.Runs < 3 {
		t.Fatalf("usage = %+v", res)
	}
	bySession := jsonOf[api.UsageResult](c, "usage", "--by", "session", "--json")
	if len(bySession.Groups) != 2 || bySession.Total.InputTokens != res.Total.InputTokens {
		t.Fatalf("by session = %+v, want main and the child adding up to %d", bySession, res.Total.InputTokens)
	}
	byModel := c.ok("usage", "--by", "model")
	mustContain(t, "usage --by model", byModel.stdout, "MODEL", "script", "total")
	if later := jsonOf[api.UsageResult](c, "usage", "--since", "2099-01-01", "--json"); len(later.Groups) != 0 {
		t.Fatalf("usage since 2099 = %+v", later)
	}
	list := c.ok("sessions", "list")
	mustContain(t, "sessions list", list.stdout, "TREE", "BUDGET", "tokens 5,000, seconds 600")
	for _, bad := range [][]string{{"usage", "--by", "planet"}, {"usage", "--since", "yesterday-ish"}} {
		if r := c.run(bad...); r.code != 2 || !strings.Contains(r.stderr, bad[1]) {
			t.Errorf("switchboard %s: exit %d %q, want a usage error naming %s", strings.Join(bad, " "), r.code, r.stderr, bad[1])
		}
	}
	if r := c.run("spawn", "x", "--budget-tokens", "0"); r.code != 2 || !strings.Contains(r.stderr, "--budget-tokens must be at least 1") {
		t.Errorf("--budget-tokens 0: exit %d %q", r.code, r.stderr)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"24h", now.Add(-24 * time.Hour)},
		{"7d", now.Add(-7 * 24 * time.Hour)},
		{"90m", now.Add(-90 * time.Minute)},
		{"2026-11-20T10:00:00Z", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)},
	} {
		got, err := parseSince(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"-5h", "soon", ""} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}
