package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestRollupsEqualSumOfLeaves is a property test: after 1,000 random
// operations (spawns under random sessions of a growing tree, chats on
// random sessions), every session's tree usage equals its own usage plus
// its children's trees, the root's tree equals the sum of every
// session's own usage, and both equal the usage ledger.
func TestRollupsEqualSumOfLeaves(t *testing.T) {
	ops := 1000
	if testing.Short() {
		ops = 200
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 16))
	h := newHarness(t, nil, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxSpawnDepth = 3
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 100
		c.Agents.Defaults.Subagents.MaxConcurrent = 1000
	})
	const root = "agent:main:main"
	h.chat("main", "start")
	type node struct {
		key   string
		depth int
	}
	nodes := []node{{root, 0}}
	for i := range ops {
		n := nodes[rng.IntN(len(nodes))]
		text := fmt.Sprintf("op %d %s", i, randomWords(rng))
		if n.depth < 3 && rng.IntN(3) > 0 {
			req := Requester{SessionKey: n.key}
			out := h.call(req, api.ToolSessionsSpawn, fmt.Sprintf(`{"task":%q}`, text))
			if out.IsError {
				t.Fatalf("spawn under %s: %s", n.key, out.JSON())
			}
			res := spawnResult(t, out)
			nodes = append(nodes, node{res.ChildSessionKey, n.depth + 1})
			continue
		}
		if _, err := h.e.chat(context.Background(), api.ChatRequest{SessionKey: n.key, Message: text}); err != nil {
			t.Fatalf("chat %s: %v", n.key, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.e.Idle(ctx); err != nil {
		t.Fatal(err)
	}
	tree := checkRollups(t, h, root)
	var selves domain.UsageTotals
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		keys[i] = n.key
	}
	accts, err := h.st.GetAccounts(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accts {
		selves.Add(a.Usage.Self)
	}
	if !closeTotals(selves, tree) {
		t.Fatalf("root tree %+v, sum of every session's own usage %+v", tree, selves)
	}
	groups, err := h.st.UsageReport(ctx, domain.UsageQuery{By: "session"})
	if err != nil {
		t.Fatal(err)
	}
	var ledger domain.UsageTotals
	for _, g := range groups {
		ledger.InputTokens += g.InputTokens
		ledger.OutputTokens += g.OutputTokens
	}
	if ledger.InputTokens != tree.InputTokens || ledger.OutputTokens != tree.OutputTokens {
		t.Fatalf("ledger %+v, root tree %+v", ledger, tree)
	}
	runs, err := h.st.ListRuns(ctx, domain.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var ran int64
	for _, r := range runs {
		if domain.RunTerminal(r.Status) && r.StartedAt > 0 {
			ran++
		}
	}
	if ran != tree.Runs || tree.Runs < int64(ops) {
		t.Fatalf("root tree counts %d runs; the store has %d that ran (ops %d)", tree.Runs, ran, ops)
	}
}

func randomWords(rng *rand.Rand) string {
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	n := 1 + rng.IntN(12)
	out := make([]byte, 0, n*8)
	for i := range n {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, words[rng.IntN(len(words))]...)
	}
	return string(out)
}
