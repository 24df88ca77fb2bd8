package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
)

// TestSpawnLimitsHoldUnderConcurrentCalls proves the live-children limits
// bound concurrent spawns too: trial 9 saw five simultaneous MCP spawns all
// accepted with maxChildrenPerAgent=1, because each counted the children
// before any of them had committed its run.
func TestSpawnLimitsHoldUnderConcurrentCalls(t *testing.T) {
	cases := []struct {
		name        string
		perAgent    int
		concurrent  int
		requesters  []string // one goroutine per entry
		wantSpawned int
		wantRefusal string
	}{
		{name: "maxChildrenPerAgent", perAgent: 2, concurrent: 50,
			requesters:  repeat("agent:main:main", 12),
			wantSpawned: 2, wantRefusal: "(agents.defaults.subagents.maxChildrenPerAgent=2)"},
		{name: "maxConcurrent", perAgent: 50, concurrent: 3,
			requesters:  append(repeat("agent:main:a", 6), repeat("agent:main:b", 6)...),
			wantSpawned: 3, wantRefusal: "(agents.defaults.subagents.maxConcurrent=3)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, slowChildren, func(c *config.Config) {
				c.Agents.Defaults.Subagents.MaxChildrenPerAgent = tc.perAgent
				c.Agents.Defaults.Subagents.MaxConcurrent = tc.concurrent
			})
			outs := make([]api.ToolOutcome, len(tc.requesters))
			atOnce(len(outs), func(i int) {
				outs[i] = h.call(Requester{SessionKey: tc.requesters[i]}, api.ToolSessionsSpawn, fmt.Sprintf(`{"task":"child %d"}`, i))
			})
			spawned := 0
			for i, out := range outs {
				if !out.IsError {
					spawned++
					continue
				}
				if msg := errorOf(out); !strings.Contains(msg, tc.wantRefusal) {
					t.Errorf("call %d refused with %q, want the %s refusal", i, msg, tc.wantRefusal)
				}
			}
			if spawned != tc.wantSpawned {
				t.Fatalf("%d of %d concurrent spawns accepted, want %d", spawned, len(outs), tc.wantSpawned)
			}
		})
	}
}

// TestSpawnRetryAtTheLimitAnswersTheFirstChild proves a spawn whose
// idempotency key already names a child is a retry, not one child more: at
// the limit, concurrent calls with one key all answer that one child.
func TestSpawnRetryAtTheLimitAnswersTheFirstChild(t *testing.T) {
	h := newHarness(t, slowChildren, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 1
	})
	outs := make([]api.ToolOutcome, 6)
	atOnce(len(outs), func(i int) {
		outs[i] = h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"once","idempotencyKey":"k1"}`)
	})
	first := spawnResult(t, outs[0])
	for i, out := range outs[1:] {
		if got := spawnResult(t, out); got.RunID != first.RunID || got.ChildSessionKey != first.ChildSessionKey {
			t.Fatalf("call %d answered run %s (%s), want the one child %s (%s)", i+1, got.RunID, got.ChildSessionKey, first.RunID, first.ChildSessionKey)
		}
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
