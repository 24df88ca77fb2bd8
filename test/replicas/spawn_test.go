package replicas

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestSpawnAnnouncedOnceAcrossReplicas: a child spawned by a run on one
// replica runs on another (the first has one sub-agent slot, taken by a
// long child), and its result is announced to the parent's session
// exactly once.
func TestSpawnAnnouncedOnceAcrossReplicas(t *testing.T) {
	gs := startReplicas(t, 3, setup{subagentLanes: []int{1}})
	a, c := gs[0], gs[2]
	long := a.chat("agent:main:parent1", "spawn long child")
	// The long child holds a's only sub-agent slot for 4 s.
	var longChild run
	testkit.WaitFor(t, 20*time.Second, "the long child running", func() bool {
		kids := a.children(long.RunID)
		if len(kids) == 1 && kids[0].Status == "running" {
			longChild = kids[0]
			return true
		}
		return false
	})
	quick := a.chat("agent:main:parent2", "spawn quick")
	if r := c.wait(quick.RunID, 20*time.Second); r.Status != "ok" {
		t.Fatalf("parent run: %+v", r)
	}
	var child run
	testkit.WaitFor(t, 20*time.Second, "the quick child", func() bool {
		kids := a.children(quick.RunID)
		if len(kids) == 1 {
			child = kids[0]
			return true
		}
		return false
	})
	child = c.wait(child.RunID, 20*time.Second)
	if child.Status != "ok" {
		t.Fatalf("quick child: %+v", child)
	}
	longChild = c.wait(longChild.RunID, 20*time.Second)
	if child.EndedAt >= longChild.EndedAt {
		t.Fatalf("the quick child ended at %d, after the long one (%d): it waited for a's only slot instead of running on another replica",
			child.EndedAt, longChild.EndedAt)
	}
	// The announce reaches parent2 once: one delivered outbox item, one
	// announce turn, one announce message.
	var ob struct {
		Items []outboxItem `json:"items"`
	}
	testkit.WaitFor(t, 20*time.Second, "the announce delivered and every run ended", func() bool {
		a.call("GET", "/api/outbox?run="+child.RunID, nil, &ob)
		// (Its archive, due later, is the other item of the run.)
		ob.Items = slices.DeleteFunc(ob.Items, func(it outboxItem) bool { return it.Kind != "subagent_announce" })
		if len(ob.Items) != 1 || ob.Items[0].Status != "delivered" {
			return false
		}
		var live struct{ Runs []run }
		a.call("GET", "/api/runs?status=queued,running", nil, &live)
		return len(live.Runs) == 0
	})
	if ob.Items[0].Attempts != 1 {
		t.Errorf("announce outbox item: %+v, want delivered in one attempt", ob.Items[0])
	}
	var inbound struct{ Runs []run }
	a.call("GET", "/api/runs?session=agent:main:parent2&kind=inbound", nil, &inbound)
	if len(inbound.Runs) != 1 {
		t.Errorf("announce turns on the parent's session: %d, want 1: %+v", len(inbound.Runs), inbound.Runs)
	}
	n := 0
	for _, m := range a.history("agent:main:parent2") {
		if m.Role == "user" && strings.Contains(m.text(), "child result") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("announce messages in the parent's session: %d, want 1", n)
	}
}

// children lists the sub-agent runs a run started.
func (g *gateway) children(parent string) []run {
	g.t.Helper()
	var out struct{ Runs []run }
	g.call("GET", "/api/runs?kind=subagent&parent="+parent, nil, &out)
	return out.Runs
}

// outboxItem is the part of an outbox row the tests read.
type outboxItem struct {
	Kind     string `json:"kind"`
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
}
