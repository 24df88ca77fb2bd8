package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// budgetRules drive a spawn tree with the script model, whose usage is
// deterministic (docs/design.md#the-script-model): "spawn LABEL TASK" spawns a child with that
// label and task; "spawnb LABEL TASK" does the same asking for a budget
// of 600 tokens; "loop" calls agents_list, and a session labelled loop
// calls it again after every tool result, until something stops it.
func budgetRules() []config.ScriptRule {
	return []config.ScriptRule{
		toolCall(config.ScriptWhen{Role: "user", Message: `^spawn (\S+) (.*)$`}, api.ToolSessionsSpawn, map[string]any{"task": "$2", "label": "$1"}),
		toolCall(config.ScriptWhen{Role: "user", Message: `^spawnb (\S+) (.*)$`}, api.ToolSessionsSpawn, map[string]any{"task": "$2", "label": "$1", "budget": map[string]any{"tokens": 600}}),
		toolCall(config.ScriptWhen{Role: "user", Message: `^loop$`}, api.ToolAgentsList, map[string]any{}),
		toolCall(config.ScriptWhen{Role: "toolResult", System: `Label: loop\.`}, api.ToolAgentsList, map[string]any{}),
	}
}

func budgetConfig(c *config.Config) {
	c.Agents.Defaults.Subagents.MaxSpawnDepth = 3
	c.Tools.Subagents.Tools.Allow = []string{"*"}
	c.Runtime.MaxSteps = 200
}

// account reads a session's usage account.
func (h *harness) account(key string) domain.Account {
	h.t.Helper()
	m, err := h.st.GetAccounts(context.Background(), []string{key})
	if err != nil {
		h.t.Fatal(err)
	}
	return m[key]
}

// childOf returns the one child session of key with label.
func (h *harness) childOf(key, label string) domain.Session {
	h.t.Helper()
	var found domain.Session
	h.waitFor("child "+label+" of "+key, func() bool {
		rows, err := h.st.ListSessions(context.Background(), domain.SessionQuery{SpawnedBy: key})
		if err != nil {
			h.t.Fatal(err)
		}
		for _, s := range rows {
			if s.Label == label {
				found = s
				return true
			}
		}
		return false
	})
	return found
}

// endedRun waits for the run and returns it.
func (h *harness) endedRun(id string) domain.Run {
	h.t.Helper()
	var r domain.Run
	h.waitFor("run "+id+" to end", func() bool {
		var err error
		r, err = h.st.GetRun(context.Background(), id)
		return err == nil && domain.RunTerminal(r.Status)
	})
	return r
}

// TestBudgetExhaustionAtEachLevel gives the first level of a three-level
// tree a token budget and lets the session at level 1, 2 or 3 spend in a
// loop: the loop's run stops before the model call after the pool is
// spent, ends error with the budget's words, is announced so, and never
// made a model call once the pool was spent.
func TestBudgetExhaustionAtEachLevel(t *testing.T) {
	const budget = 1500
	cases := []struct {
		name string
		task string // level 1's task
		// want is the budget the loop run reports (level 2 asking for
		// 600 makes its own pool the tighter one).
		want int64
		// depth is the level of the looping session.
		depth int
		// l1 is level 1's budget.
		l1 int64
	}{
		{"level1", "loop", budget, 1, budget},
		{"level2", "spawn loop loop", budget, 2, budget},
		{"level3", "spawn l2 spawn loop loop", budget, 3, budget},
		{"level3-own-budget", "spawn l2 spawnb loop loop", 600, 3, 20 * budget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, budgetRules(), budgetConfig)
			label := "l1"
			if c.depth == 1 {
				label = "loop"
			}
			res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, fmt.Sprintf(`{"task":%q,"label":%q,"budget":{"tokens":%d}}`, c.task, label, c.l1)))
			if res.Budget == nil || res.Budget.Tokens != c.l1 {
				t.Fatalf("spawn result budget = %+v, want tokens %d", res.Budget, c.l1)
			}
			// Find the looping session down the tree.
			chain := []string{res.ChildSessionKey}
			labels := map[int]string{2: "loop", 3: "l2"}
			if c.depth == 3 {
				chain = append(chain, h.childOf(chain[0], "l2").Key)
				chain = append(chain, h.childOf(chain[1], "loop").Key)
			} else if c.depth == 2 {
				chain = append(chain, h.childOf(chain[0], labels[2]).Key)
			}
			loopKey := chain[len(chain)-1]
			run := h.endedRun(h.spawnRunOf(loopKey).ID)
			wantErr := "budget exceeded: tokens "
			if run.Status != domain.RunError || !strings.HasPrefix(run.Error, wantErr) {
				t.Fatalf("loop run = %s %q, want error %q…", run.Status, run.Error, wantErr)
			}
			// The error names the first bound hit walking up from the
			// loop's own session (docs/budgets.md). A child spawned
			// without a budget of its own gets what its parent's pool had
			// left (1,500 less the parent's spawning step), so its own
			// bound and the pool's are reached together unless the parent
			// spends again first (its step after the spawn): which of the
			// two is named depends on that race, and either is right. It
			// must be a bound of the chain that is spent, and one whose
			// pool is the tightest the case gives (c.want).
			named := namedBound(t, run.Error, h, chain)
			if named.Budget.Tokens > c.want {
				t.Fatalf("loop run %q names %s's budget %d, above the case's pool %d", run.Error, named.SessionKey, named.Budget.Tokens, c.want)
			}
			// The announce to the loop's parent says so.
			parent := "main"
			if len(chain) > 1 {
				parent = chain[len(chain)-2]
			}
			h.waitFor("the loop's announce", func() bool {
				for _, m := range announces(h, parent) {
					if strings.Contains(m.Content.Text(), loopKey) {
						return true
					}
				}
				return false
			})
			for _, m := range announces(h, parent) {
				a := m.Content.Text()
				if !strings.Contains(a, loopKey) {
					continue
				}
				for _, want := range []string{"Status: error", "Notes: " + run.Error, "Stats: ", "budget tokens "} {
					if !strings.Contains(a, want) {
						t.Errorf("announce lacks %q:\n%s", want, a)
					}
				}
			}
			// The pool is spent as far as the next prompt lets it be (the
			// call it alone would overrun is not made), and the loop made
			// no model call after: the ledger up to the loop's last step
			// was under budget.
			h.e.Idle(t.Context())
			pool := h.account(chain[0])
			if c.want != budget {
				pool = h.account(loopKey)
			}
			if got := pool.Usage.Tree.Tokens(); got < c.want/2 {
				t.Fatalf("pool %s spent %d tokens, far under its budget %d", pool.SessionKey, got, c.want)
			}
			entries, err := h.st.LedgerEntries(t.Context(), 0)
			if err != nil {
				t.Fatal(err)
			}
			inPool := map[string]bool{}
			for _, k := range chain {
				inPool[k] = true
			}
			if c.want != budget {
				inPool = map[string]bool{loopKey: true}
			}
			// The check before the loop's last model call came after its
			// previous step was charged and saw the pool under budget, so
			// the pool through that step was under it (steps of other runs
			// in flight may land after the check: they are not counted).
			prev, last := -1, -1
			for i, e := range entries {
				if e.RunID == run.ID {
					prev, last = last, i
				}
			}
			// Under load the upper levels' steps after their spawns can
			// spend the pool before the loop's first or second call, so
			// the loop may make zero or one call: each was allowed by its
			// check, and there is no earlier step of its own to bound.
			if prev >= 0 {
				var before int64
				for _, e := range entries[:prev+1] {
					if inPool[e.SessionKey] {
						before += e.InputTokens + e.OutputTokens
					}
				}
				if before >= c.want {
					t.Fatalf("the loop made a model call after %d tokens of %d were spent", before, c.want)
				}
			}
			// Rollups: every level's tree is its own usage plus its children's trees.
			checkRollups(t, h, "agent:main:main")
		})
	}
}

func groupedForTest(n int64) string {
	return (&domain.BudgetExceeded{What: "tokens", Limit: float64(n)}).Amounts()[len("tokens 0 of "):]
}

// namedBound returns the account of chain whose token budget the error
// text "… of N" names; it fails the test unless exactly such an account
// exists and its tree has reached that budget.
func namedBound(t *testing.T, errText string, h *harness, chain []string) domain.Account {
	t.Helper()
	// A refused call says "(the next model call's prompt alone is about N
	// tokens)": the named bound is reached by what was spent plus N.
	var prompt int64
	if i := strings.Index(errText, " (the next model call's prompt alone is about "); i >= 0 {
		n := strings.TrimSuffix(errText[i+len(" (the next model call's prompt alone is about "):], " tokens)")
		v, err := strconv.ParseInt(strings.ReplaceAll(n, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("%q: prompt estimate %q: %v", errText, n, err)
		}
		errText, prompt = errText[:i], v
	}
	for _, k := range chain {
		a := h.account(k)
		if a.Budget.Tokens > 0 && strings.HasSuffix(errText, " of "+groupedForTest(a.Budget.Tokens)) {
			if a.Usage.Tree.Tokens()+prompt < a.Budget.Tokens {
				t.Fatalf("%q names %s's budget %d, which its tree (%d) and the next prompt (%d) do not reach", errText, k, a.Budget.Tokens, a.Usage.Tree.Tokens(), prompt)
			}
			return a
		}
	}
	t.Fatalf("%q names no budget of the chain %v", errText, chain)
	return domain.Account{}
}

// checkRollups asserts, for key and every session below it, that the tree
// rollup equals its own usage plus the trees of its children.
func checkRollups(t *testing.T, h *harness, key string) domain.UsageTotals {
	t.Helper()
	a := h.account(key)
	sum := a.Usage.Self
	kids, err := h.st.ListSessions(t.Context(), domain.SessionQuery{SpawnedBy: key, IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		sum.Add(checkRollups(t, h, k.Key))
	}
	if !closeTotals(sum, a.Usage.Tree) {
		t.Fatalf("%s: tree %+v, want self + children %+v", key, a.Usage.Tree, sum)
	}
	return a.Usage.Tree
}

func closeTotals(a, b domain.UsageTotals) bool {
	d := a.CostUSD - b.CostUSD
	return a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens && a.Runs == b.Runs && d < 1e-9 && d > -1e-9
}

// TestBudgetSplitBetweenSiblings: two children of a budgeted session each
// ask for more than half of it; they draw on the one pool, which stops
// both, and neither gets more than the parent had left when it spawned.
func TestBudgetSplitBetweenSiblings(t *testing.T) {
	h := newHarness(t, budgetRules(), budgetConfig)
	const budget = 1000
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, fmt.Sprintf(`{"task":"idle","label":"parent","budget":{"tokens":%d}}`, budget)))
	parent := res.ChildSessionKey
	h.endedRun(res.RunID)
	spent := h.account(parent).Usage.Tree.Tokens()
	if spent <= 0 || spent >= budget {
		t.Fatalf("parent spent %d before spawning", spent)
	}
	var runs []string
	for range 2 {
		r := spawnResult(t, h.call(Requester{SessionKey: parent}, api.ToolSessionsSpawn, `{"task":"loop","label":"loop","budget":{"tokens":800}}`))
		if r.Budget == nil || r.Budget.Tokens > 800 || r.Budget.Tokens > budget-spent {
			t.Fatalf("sibling budget = %+v, want at most min(800, %d left)", r.Budget, budget-spent)
		}
		runs = append(runs, r.RunID)
	}
	for _, id := range runs {
		r := h.endedRun(id)
		if r.Status != domain.RunError || !strings.HasPrefix(r.Error, "budget exceeded: tokens ") {
			t.Fatalf("sibling run = %s %q", r.Status, r.Error)
		}
	}
	h.e.Idle(t.Context())
	// The pool is spent up to what the next prompt would need (steps in
	// flight at once may pass it: the runs then end error, as both did).
	pool := h.account(parent)
	if got := pool.Usage.Tree.Tokens(); got < budget/2 {
		t.Fatalf("parent tree spent %d, want most of its budget %d", got, budget)
	}
	// Together, not each: the children's trees add up to the pool's spending.
	checkRollups(t, h, "agent:main:main")
	// A third child would get too little for its first prompt: the spawn is refused.
	out := h.call(Requester{SessionKey: parent}, api.ToolSessionsSpawn, `{"task":"hello","label":"late"}`)
	if !out.IsError || !strings.Contains(errorOf(out), "sessions_spawn refused: nothing left to give the child") {
		t.Fatalf("late sibling = %s, want its spawn refused", out.JSON())
	}
}

// TestBudgetRefusals: bad budgets are refused naming the field and the
// limit; a costUsd budget needs pricing.
func TestBudgetRefusals(t *testing.T) {
	h := newHarness(t, budgetRules(), budgetConfig)
	for _, c := range []struct{ args, want string }{
		{`{"task":"x","budget":{"tokens":0}}`, "budget.tokens must be at least 1"},
		{`{"task":"x","budget":{"tokens":1.5}}`, "budget.tokens must be a whole number"},
		{`{"task":"x","budget":{"seconds":999999999}}`, "budget.seconds must be at most 604800"},
		{`{"task":"x","budget":{"costUsd":-1}}`, "budget.costUsd must be more than 0"},
		{`{"task":"x","budget":{"costUsd":0.5}}`, "budget.costUsd needs a price for model \"script\": set models.providers.script.pricing"},
		{`{"task":"x","budget":{"bogus":1}}`, "bogus"},
	} {
		out := h.call(Requester{}, api.ToolSessionsSpawn, c.args)
		var p struct{ Error string }
		_ = json.Unmarshal(out.JSON(), &p)
		if !out.IsError || !strings.Contains(p.Error, c.want) {
			t.Errorf("%s → %s, want an error with %q", c.args, out.JSON(), c.want)
		}
	}
}

// TestBudgetCostWithPricing: with pricing, cost is charged per step and a
// costUsd budget stops the run.
func TestBudgetCostWithPricing(t *testing.T) {
	h := newHarness(t, budgetRules(), func(c *config.Config) {
		budgetConfig(c)
		p := c.Models.Providers["script"]
		p.Pricing = &config.PricingConfig{InputPerMillion: 1000, OutputPerMillion: 1000} // $0.001 a token
		c.Models.Providers["script"] = p
	})
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"loop","label":"loop","budget":{"costUsd":0.5}}`))
	r := h.endedRun(res.RunID)
	if r.Status != domain.RunError || !strings.HasPrefix(r.Error, "budget exceeded: costUsd ") || !strings.Contains(r.Error, " of 0.5000") {
		t.Fatalf("run = %s %q", r.Status, r.Error)
	}
	a := h.account(res.ChildSessionKey)
	if got, want := a.Usage.Self.CostUSD, float64(a.Usage.Self.Tokens())/1000; got < want-1e-9 || got > want+1e-9 {
		t.Fatalf("cost %v, want %v for %d tokens", got, want, a.Usage.Self.Tokens())
	}
}

// TestBudgetDefaultsFromConfig: a spawn without a budget gets the
// spawning agent's configured one.
func TestBudgetDefaultsFromConfig(t *testing.T) {
	h := newHarness(t, budgetRules(), func(c *config.Config) {
		budgetConfig(c)
		c.Agents.Defaults.Subagents.Budget = &config.BudgetConfig{Tokens: 5000, Seconds: 60}
		c.Agents.List[0].Subagents = &config.AgentSubagents{AllowAgents: []string{"main"}, Budget: &config.BudgetConfig{Tokens: 700}}
	})
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"hello"}`))
	if res.Budget == nil || res.Budget.Tokens != 700 || res.Budget.Seconds != 60 {
		t.Fatalf("budget = %+v, want the agent's tokens 700 over the default seconds 60", res.Budget)
	}
	a := h.account(res.ChildSessionKey)
	if a.DeadlineAt == 0 || a.DeadlineAt-a.StartedAt != 60_000 {
		t.Fatalf("account = %+v, want a deadline 60 s after the spawn", a)
	}
}

// spawnRunOf returns the sub-agent run of a child session.
func (h *harness) spawnRunOf(key string) domain.Run {
	h.t.Helper()
	runs, err := h.st.ListRuns(context.Background(), domain.RunQuery{SessionKey: key, Kinds: []domain.RunKind{domain.RunKindSubagent}})
	if err != nil || len(runs) != 1 {
		h.t.Fatalf("sub-agent runs of %s: %v %v", key, runs, err)
	}
	return runs[0]
}
