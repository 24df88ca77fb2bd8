package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/budget"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/subagent"
)

// sinkRules add to budgetRules a send to any session ("sendto KEY MSG",
// without waiting) and sessions agent:main:sink… that answer "talk…"
// with a long reply (about 1,000 tokens).
func sinkRules() []config.ScriptRule {
	return append(budgetRules(),
		toolCall(config.ScriptWhen{Role: "user", Message: `^sendto (\S+) (.*)$`}, api.ToolSessionsSend,
			map[string]any{"sessionKey": "$1", "message": "$2", "timeoutSeconds": 0}),
		config.ScriptRule{When: config.ScriptWhen{Session: "^agent:main:sink", Message: "talk"}, Reply: str(strings.Repeat("many words ", 400))},
	)
}

// TestBudgetCoversRunsASendCauses: a child with a 400-token budget sends
// to a session outside its tree that answers at length. The target's run
// (and the exchange's reply-back and announce steps) draw on the child's
// budget: their tokens are in the child's tree, and none of them ends ok
// having spent more than the 400 tokens.
func TestBudgetCoversRunsASendCauses(t *testing.T) {
	h := newHarness(t, sinkRules(), func(c *config.Config) {
		budgetConfig(c)
		agentVisibility(c)
	})
	h.chat("agent:main:sink", "hello") // the target exists
	const budget = 400
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"sendto agent:main:sink talk to me","label":"sender","budget":{"tokens":400}}`))
	h.endedRun(res.RunID)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := h.e.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	runs, err := h.st.ListRuns(ctx, domain.RunQuery{SessionKey: "agent:main:sink", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var caused int64
	n := 0
	for _, r := range runs {
		if r.Kind == domain.RunKindChat {
			continue // the target's own chat before the send
		}
		n++
		spent := r.Usage.Input + r.Usage.Output
		caused += spent
		if r.Status == domain.RunOK && spent > budget {
			t.Errorf("target run %s (%s) ended ok having spent %d tokens of the sender's %d", r.ID, r.Kind, spent, budget)
		}
	}
	if n == 0 {
		t.Fatal("the send started no run in the target")
	}
	sender := h.account(res.ChildSessionKey)
	if got := sender.Usage.Tree.Tokens(); got < sender.Usage.Self.Tokens()+caused {
		t.Errorf("sender's tree spent %d, want its own %d plus the %d its send caused", got, sender.Usage.Self.Tokens(), caused)
	}
}

// TestBudgetTinyRunRefusedNotOK: a 5-token budget cannot pay for any
// prompt, so the spawn is refused; a budget just above the spawn's own
// estimate (task and sub-agent context) cannot pay for the run's whole
// prompt: the run ends error with the budget's words before its model
// call, and the announce says so (never ok).
func TestBudgetTinyRunRefusedNotOK(t *testing.T) {
	h := newHarness(t, budgetRules(), budgetConfig)
	const task = "hello there"
	out := h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"hello there","label":"tiny","budget":{"tokens":5}}`)
	if !out.IsError || !strings.HasPrefix(errorOf(out), "sessions_spawn refused: nothing left to give the child") {
		t.Fatalf("spawn with 5 tokens = %s, want refused", out.JSON())
	}
	tokens := budget.EstimateTokens(task, subagent.Context("agent:main:main", "", "tiny")) + 2
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, fmt.Sprintf(`{"task":%q,"label":"tiny","budget":{"tokens":%d}}`, task, tokens)))
	r := h.endedRun(res.RunID)
	want := fmt.Sprintf("budget exceeded: tokens 0 of %d (the next model call's prompt alone is about ", tokens)
	if r.Status != domain.RunError || !strings.HasPrefix(r.Error, want) {
		t.Fatalf("tiny run = %s %q usage %+v, want refused before its model call", r.Status, r.Error, r.Usage)
	}
	if spent := r.Usage.Input + r.Usage.Output; spent != 0 {
		t.Fatalf("tiny run spent %d tokens", spent)
	}
	h.waitFor("the tiny child's announce", func() bool {
		for _, m := range announces(h, "agent:main:main") {
			if text := m.Content.Text(); strings.Contains(text, res.ChildSessionKey) {
				return strings.Contains(text, want)
			}
		}
		return false
	})
}

// TestBudgetOvershootEndsError: a budget the prompt fits but the answer
// would pass caps the answer at what is left, so the run ends inside it;
// a step that still overshoots (a tool call is never cut) ends the run
// error, never ok.
func TestBudgetOvershootEndsError(t *testing.T) {
	rules := append(budgetRules(),
		config.ScriptRule{When: config.ScriptWhen{Role: "user", Message: "^ramble"}, Reply: str(strings.Repeat("ramble on ", 500))},
		toolCall(config.ScriptWhen{Role: "user", Message: "^bigcall"}, api.ToolAgentsList, map[string]any{"pad": strings.Repeat("x", 4000)}),
	)
	h := newHarness(t, rules, budgetConfig)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"ramble","label":"capped","budget":{"tokens":300}}`))
	r := h.endedRun(res.RunID)
	if a := h.account(res.ChildSessionKey); r.Status == domain.RunOK && a.Usage.Tree.Tokens() > 300 {
		t.Fatalf("capped run ended ok having spent %d of 300", a.Usage.Tree.Tokens())
	}
	if r.Status != domain.RunOK || len(r.Reply) >= len(strings.Repeat("ramble on ", 500)) {
		t.Fatalf("capped run = %s %q, want ok with its answer cut at the budget", r.Status, r.Error)
	}

	res = spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"bigcall","label":"over","budget":{"tokens":300}}`))
	r = h.endedRun(res.RunID)
	a := h.account(res.ChildSessionKey)
	if a.Usage.Tree.Tokens() <= 300 {
		t.Fatalf("the tool call step spent %d, want it past the 300 budget", a.Usage.Tree.Tokens())
	}
	if r.Status != domain.RunError || !strings.HasPrefix(r.Error, "budget exceeded: tokens ") {
		t.Fatalf("overshooting run = %s %q, want error budget exceeded", r.Status, r.Error)
	}
}

// TestBudgetSpawnWithNothingLeftRefused: once a budgeted child's pool is
// spent, it may not spawn a grandchild (which would get a token of rest).
func TestBudgetSpawnWithNothingLeftRefused(t *testing.T) {
	h := newHarness(t, budgetRules(), budgetConfig)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"loop","label":"loop","budget":{"tokens":600}}`))
	h.endedRun(res.RunID)
	child := Requester{SessionKey: res.ChildSessionKey}
	out := h.call(child, api.ToolSessionsSpawn, `{"task":"hello","budget":{"tokens":1}}`)
	if !out.IsError || !strings.HasPrefix(errorOf(out), "sessions_spawn refused: nothing left to give the child") {
		t.Fatalf("spawn from an exhausted child = %s, want refused", out.JSON())
	}
}
