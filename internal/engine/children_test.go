package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestManyChildrenAnnounceExactlyOnce is the test-sized version of
// BenchmarkThousandChildren: 200 children spawned at once by 20
// concurrent callers each complete and announce to the requester exactly
// once — one delivered announce item, one announce message in the
// requester's transcript and one requester turn per child, none twice and
// none missing — checked once nothing is queued, running or pending.
func TestManyChildrenAnnounceExactlyOnce(t *testing.T) {
	const children, callers = 200, 20
	h := newHarness(t, []config.ScriptRule{{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("r"), DelayMs: 20}}, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = children
		c.Agents.Defaults.Subagents.MaxConcurrent = children
		c.Runtime.Lanes = config.LaneLimits{Main: 64, Nested: 64, Subagent: children}
	})
	ctx := context.Background()
	var mu sync.Mutex
	spawned := map[string]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, children)
	for w := 0; w < callers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < children/callers; j++ {
				res, err := h.e.spawn(ctx, Requester{}, api.SpawnRequest{Task: "child"})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				spawned[res.ChildSessionKey] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("spawn: %v", err)
	}
	if len(spawned) != children {
		t.Fatalf("%d distinct child sessions, want %d", len(spawned), children)
	}

	// Wait until quiescent: every announce delivered and no run left to
	// run (the children's archive cleanup is an hour away). A second
	// announce of any child would have been written by then.
	var state string
	defer func() {
		if t.Failed() {
			t.Logf("last seen: %s", state)
		}
	}()
	// 200 announce turns run one after another on the requester's lane:
	// under -race on a loaded machine that takes longer than most waits.
	h.waitForWithin("all announces delivered and every run ended", time.Minute, func() bool {
		pending, err := h.st.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}})
		if err != nil {
			t.Fatal(err)
		}
		active, err := h.st.ListRuns(ctx, domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
		if err != nil {
			t.Fatal(err)
		}
		due := 0 // cleanup items (the children's archive) are due in an hour
		for _, it := range pending {
			if it.Kind != domain.OutboxCleanup {
				due++
			}
		}
		announced := len(outboxOf(h, domain.OutboxSubagentAnnounce))
		state = fmt.Sprintf("%d outbox items due, %d runs queued or running, %d announce items", due, len(active), announced)
		return due == 0 && len(active) == 0 && announced >= children
	})

	items := outboxOf(h, domain.OutboxSubagentAnnounce)
	if len(items) != children {
		t.Fatalf("%d announce items, want %d", len(items), children)
	}
	for _, it := range items {
		if it.Status != domain.OutboxDelivered {
			t.Fatalf("announce item %d is %s (%s), want delivered", it.ID, it.Status, it.LastError)
		}
	}
	turns := runsOf(h, "agent:main:main", domain.RunKindInbound)
	seen := map[string]bool{}
	for _, r := range turns {
		if seen[r.RequesterKey] {
			t.Fatalf("child %s announced twice", r.RequesterKey)
		}
		if !spawned[r.RequesterKey] {
			t.Fatalf("announce turn from %q, which is no spawned child", r.RequesterKey)
		}
		if r.Status != domain.RunOK {
			t.Fatalf("announce turn %s ended %s %q", r.ID, r.Status, r.Error)
		}
		seen[r.RequesterKey] = true
	}
	if len(seen) != children {
		t.Fatalf("%d children announced, want %d", len(seen), children)
	}
	if n := len(announces(h, "main")); n != children {
		t.Fatalf("%d announce messages in the requester's transcript, want %d", n, children)
	}
	childRuns, err := h.st.ListRuns(ctx, domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindSubagent}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range childRuns {
		if r.Status != domain.RunOK {
			t.Fatalf("child run %s ended %s %q", r.ID, r.Status, r.Error)
		}
	}
}
