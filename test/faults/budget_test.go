package faults

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// budgetConfig: a session labelled loop calls agents_list after every
// tool result, slowly enough to be killed mid-run.
const budgetConfig = `{
  agents: { defaults: { subagents: { maxSpawnDepth: 3 } } },
  tools: { sessions: { visibility: "all" }, subagents: { tools: { allow: ["*"] } } },
  models: { providers: { script: { rules: [
    { when: { role: "user", message: "^loop$" }, toolCall: { name: "agents_list", arguments: {} } },
    { when: { role: "toolResult", system: "Label: loop\\." }, toolCall: { name: "agents_list", arguments: {} }, delayMs: 150 },
  ] } } },
}`

type usageRow struct {
	Key   string `json:"key"`
	Usage struct {
		Self struct{ InputTokens, OutputTokens int64 } `json:"self"`
		Tree struct{ InputTokens, OutputTokens int64 } `json:"tree"`
	} `json:"usage"`
	Budget *struct {
		Tokens int64 `json:"tokens"`
	} `json:"budget"`
}

func (r usageRow) tree() int64 { return r.Usage.Tree.InputTokens + r.Usage.Tree.OutputTokens }

func sessionUsage(t *testing.T, g *gateway, key string) usageRow {
	t.Helper()
	var row usageRow
	if code, body := g.call("GET", "/api/sessions/"+url.PathEscape(key), nil, &row); code != 200 {
		t.Fatalf("GET session %s: %d %s", key, code, body)
	}
	return row
}

type budgetSpawn struct {
	ChildSessionKey string `json:"childSessionKey"`
	RunID           string `json:"runId"`
}

func spawn(t *testing.T, g *gateway, body map[string]any) budgetSpawn {
	t.Helper()
	var res budgetSpawn
	if code, b := g.call("POST", "/api/spawn", body, &res); code != 200 {
		t.Fatalf("spawn: %d %s", code, b)
	}
	return res
}

type runRow struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Usage  struct {
		Input int64 `json:"input"`
	} `json:"usage"`
}

func endedRun(t *testing.T, g *gateway, id string, within time.Duration) runRow {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var r runRow
		g.call("GET", "/api/runs/"+id, nil, &r)
		switch r.Status {
		case "ok", "error", "timeout", "cancelled":
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not end within %s (status %q)", id, within, r.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBudgetSurvivesKill: usage charged before a SIGKILL is still charged
// after the restart, so the budget's pool is what it was, and a pool spent
// before a SIGKILL stops every run under it after the restart, before
// its first model call.
func TestBudgetSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("fault injection")
	}
	const budget = 4000
	dir := t.TempDir()
	testkit.WriteConfig(t, dir, budgetConfig)
	g := startGateway(t, dir, "first")
	pool := spawn(t, g, map[string]any{"task": "loop", "label": "loop", "budget": map[string]any{"tokens": budget}})
	// Let it spend some, then kill the process mid-run.
	deadline := time.Now().Add(30 * time.Second)
	var before int64
	for before < budget/4 {
		if time.Now().After(deadline) {
			t.Fatalf("the pool spent only %d tokens in 30 s", before)
		}
		time.Sleep(50 * time.Millisecond)
		before = sessionUsage(t, g, pool.ChildSessionKey).tree()
	}
	g.kill()
	if before >= budget {
		t.Fatalf("the pool was spent (%d) before the kill; raise the budget", before)
	}

	g = startGateway(t, dir, "after kill")
	after := sessionUsage(t, g, pool.ChildSessionKey)
	if after.tree() < before {
		t.Fatalf("after the restart the pool shows %d tokens spent, %d before the kill", after.tree(), before)
	}
	if after.Budget == nil || after.Budget.Tokens != budget {
		t.Fatalf("budget after the restart = %+v", after.Budget)
	}
	// A child of the pool gets only what is left, and is stopped when the
	// pool (with the spending from before the kill) is spent.
	child := spawn(t, g, map[string]any{"as": pool.ChildSessionKey, "task": "loop", "label": "loop"})
	r := endedRun(t, g, child.RunID, 60*time.Second)
	// (Its own budget is what the pool had left, so either may be named.)
	if r.Status != "error" || !strings.HasPrefix(r.Error, "budget exceeded: tokens ") {
		t.Fatalf("child after the restart: %s %q", r.Status, r.Error)
	}
	if cb := sessionUsage(t, g, child.ChildSessionKey).Budget; cb == nil || cb.Tokens > budget-before {
		t.Fatalf("child budget %+v, want at most the %d left after the kill", cb, budget-before)
	}
	spent := sessionUsage(t, g, pool.ChildSessionKey).tree()
	if own := sessionUsage(t, g, child.ChildSessionKey).tree(); own > budget-before+2000 {
		t.Fatalf("the child spent %d, as if the %d spent before the kill did not count", own, before)
	}
	// The pool is spent as far as the next prompt lets it be (a call whose
	// prompt alone would overrun it is not made).
	if spent < budget/2 {
		t.Fatalf("the pool stopped at %d of %d", spent, budget)
	}
	g.kill()

	// The spent pool is enforced after another SIGKILL and restart: a new
	// child is stopped before its first model call.
	g = startGateway(t, dir, "after second kill")
	// A new child is refused at its spawn (too little left for its first
	// prompt) or stopped by the pool — what was spent before the kill
	// counts — never ending ok.
	var late budgetSpawn
	code, b := g.call("POST", "/api/spawn", map[string]any{"as": pool.ChildSessionKey, "task": "loop", "label": "loop"}, &late)
	switch {
	case code != 200 && strings.Contains(string(b), "sessions_spawn refused: nothing left to give the child"):
	case code != 200:
		t.Fatalf("late spawn: %d %s", code, b)
	default:
		r = endedRun(t, g, late.RunID, 30*time.Second)
		if r.Status != "error" || !strings.HasPrefix(r.Error, "budget exceeded: tokens ") {
			t.Fatalf("late child: %s %q input %d, want stopped by the pool", r.Status, r.Error, r.Usage.Input)
		}
	}
	if now := sessionUsage(t, g, pool.ChildSessionKey).tree(); now < spent {
		t.Fatalf("the pool shows %d spent after the restart, %d before", now, spent)
	}
	g.stop()
}
