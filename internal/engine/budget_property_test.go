package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/budget"
	"github.com/switchboard-go/switchboard/internal/runspec"

	"pgregory.net/rapid"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// treesPerCheck random trees are spawned at once in each of rapid's checks
// (100 by default): over 1,000 trees in all. Under the race detector,
// which slows every run several times, two per check (200 trees) keep the
// package inside its test timeout; the property checked is the same.
func treesPerCheck() (perCheck, atLeast int) {
	if raceDetector {
		return 2, 150
	}
	return 11, 1000
}

// propertyRules extend sinkRules with a long answer ("ramble") and a
// spawn asking for a small budget ("spawns").
func propertyRules() []config.ScriptRule {
	return append(sinkRules(),
		config.ScriptRule{When: config.ScriptWhen{Role: "user", Message: "^ramble"}, Reply: str(strings.Repeat("ramble on ", 400))},
		toolCall(config.ScriptWhen{Role: "user", Message: `^spawns (\S+) (.*)$`}, api.ToolSessionsSpawn,
			map[string]any{"task": "$2", "label": "$1", "budget": map[string]any{"tokens": 250}}),
	)
}

// treeTask draws a task whose work is a random spawn tree: leaves answer,
// ramble, loop on a tool or send to a session outside the tree; inner
// nodes spawn with no budget of their own, 600 or 250 tokens.
// Each tree sends to its own sink, so trees do not queue behind each
// other's turns in one session.
func treeTask(t *rapid.T, depth int, sink string) string {
	leaves := []string{"hello", "ramble", "sendto " + sink + " talk"}
	if depth < 3 {
		leaves = append(leaves, "spawn loop loop")
	}
	if depth >= 3 || rapid.IntRange(0, 2).Draw(t, "leaf") == 0 {
		return rapid.SampledFrom(leaves).Draw(t, "task")
	}
	verb := rapid.SampledFrom([]string{"spawn", "spawnb", "spawns"}).Draw(t, "verb")
	return fmt.Sprintf("%s n%d %s", verb, depth, treeTask(t, depth+1, sink))
}

// TestBudgetPropertyNoRunEndsOKOverBudget: over more than 1,000 random
// trees — spawned with random token budgets, siblings at once, with sends
// outside the tree — no run ends ok having spent more than a budget it
// draws on, and for every pool that ended overspent the last run charged
// to it did not end ok.
func TestBudgetPropertyNoRunEndsOKOverBudget(t *testing.T) {
	h := newHarness(t, propertyRules(), func(c *config.Config) {
		budgetConfig(c)
		agentVisibility(c)
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 50
		c.Agents.Defaults.Subagents.MaxConcurrent = 50
		c.Runtime.MaxSteps = 10
	})
	perCheck, minTrees := treesPerCheck()
	checked := map[string]bool{}
	trees, round := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		round++
		for i := range perCheck {
			// Each tree has its own requester and sink: the announces and
			// sends of a thousand trees do not pile up in one transcript.
			home := fmt.Sprintf("agent:main:home-%d-%d", round, i)
			task := treeTask(rt, 1, fmt.Sprintf("agent:main:sink-%d-%d", round, i))
			budget := rapid.Int64Range(150, 800).Draw(rt, "budget")
			label := fmt.Sprintf("root%d", i)
			if task == "loop" {
				label = "loop"
			}
			wg.Go(func() {
				out := h.call(Requester{SessionKey: home}, api.ToolSessionsSpawn, fmt.Sprintf(`{"task":%q,"label":%q,"budget":{"tokens":%d}}`, task, label, budget))
				if !out.IsError {
					mu.Lock()
					trees++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := h.e.Idle(ctx); err != nil {
			rt.Fatalf("idle: %v", err)
		}
		checkBudgetProperty(rt, h, checked)
	})
	if trees < minTrees {
		t.Fatalf("only %d trees were spawned, want at least %d", trees, minTrees)
	}
}

// checkBudgetProperty checks the runs that ended since the last check.
func checkBudgetProperty(t *rapid.T, h *harness, checked map[string]bool) {
	ctx := context.Background()
	runs, err := h.st.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunOK, domain.RunError, domain.RunTimeout, domain.RunCancelled}, Limit: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	accounts := map[string]domain.Account{}
	account := func(key string) domain.Account {
		if a, ok := accounts[key]; ok {
			return a
		}
		m, err := h.st.GetAccounts(ctx, []string{key})
		if err != nil {
			t.Fatal(err)
		}
		accounts[key] = m[key]
		return m[key]
	}
	// pools is every budgeted account a run draws on: its session's
	// chain and its payer's.
	pools := func(r domain.Run) []domain.Account {
		var out []domain.Account
		spec, err := runspec.Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{r.SessionKey, spec.Payer} {
			for depth := 0; key != "" && depth < budget.MaxChain; depth++ {
				a := account(key)
				if a.Budget.Tokens > 0 {
					out = append(out, a)
				}
				key = a.SpawnedBy
			}
		}
		return out
	}
	last := map[string][]domain.Run{} // pool → the runs charged to it that ended last
	for _, r := range runs {
		if checked[r.ID] || !domain.RunTerminal(r.Status) {
			continue
		}
		checked[r.ID] = true
		spent := r.Usage.Input + r.Usage.Output
		for _, a := range pools(r) {
			if r.Status == domain.RunOK && spent > a.Budget.Tokens {
				t.Fatalf("run %s (%s in %s) ended ok having spent %d tokens, over %s's budget %d", r.ID, r.Kind, r.SessionKey, spent, a.SessionKey, a.Budget.Tokens)
			}
			l := last[a.SessionKey]
			switch {
			case len(l) == 0 || r.EndedAt > l[0].EndedAt:
				last[a.SessionKey] = []domain.Run{r}
			case r.EndedAt == l[0].EndedAt:
				last[a.SessionKey] = append(l, r)
			}
		}
	}
	for key, l := range last {
		a := account(key)
		if a.Usage.Tree.Tokens() <= a.Budget.Tokens {
			continue
		}
		ok := true
		for _, r := range l {
			ok = ok && r.Status == domain.RunOK
		}
		if ok {
			t.Fatalf("pool %s spent %d of %d, and the last run charged to it (%s, %s) ended ok", key, a.Usage.Tree.Tokens(), a.Budget.Tokens, l[0].ID, l[0].Kind)
		}
	}
}
