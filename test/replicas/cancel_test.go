package replicas

import (
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestCancelWhileOwnerDead: runs execute on a replica that is SIGKILLed;
// before its lease (15 s: far more than the cancels take, even on a
// loaded machine) expires, another replica receives their cancel
// (a run, and the parent of a running child: the cancel cascades). The
// cancel signal reaches no one, but the cancel was written down: the
// replica that takes the runs over ends them cancelled instead of running
// them again (attempt 2), and no reply lands.
func TestCancelWhileOwnerDead(t *testing.T) {
	gs := startReplicas(t, 2, setup{lease: 15})
	a, b := gs[0], gs[1]
	plain := a.chat("agent:main:deadcancel", "stall while dead")
	parent := a.chat("agent:main:deadparent", "spawn long child")
	var child run
	testkit.WaitFor(t, 20*time.Second, "the run and the long child running", func() bool {
		var r run
		b.call("GET", "/api/runs/"+plain.RunID, nil, &r)
		kids := b.children(parent.RunID)
		var pr run
		b.call("GET", "/api/runs/"+parent.RunID, nil, &pr)
		if r.Status != "running" || pr.Status != "running" || len(kids) != 1 || kids[0].Status != "running" {
			return false
		}
		child = kids[0]
		return true
	})
	a.kill()
	// Each cancel answers once its run settles (at most 10 s) — here not
	// before the take-over — so the two are sent at once: both are written
	// down as they arrive, long before the 15 s lease runs out.
	killed := time.Now()
	errs := make(chan error, 2)
	for _, id := range []string{plain.RunID, parent.RunID} {
		go func() { errs <- b.post("/api/runs/" + id + "/cancel") }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("both cancels answered %s after the kill", time.Since(killed).Round(time.Millisecond))
	for _, id := range []string{plain.RunID, parent.RunID, child.RunID} {
		got := b.wait(id, 45*time.Second)
		if got.Status != "cancelled" || got.Attempt > 1 {
			t.Errorf("run %s cancelled while its replica was dead: %+v, want cancelled on its first attempt", id, got)
		}
	}
	if n := count(b.history("agent:main:deadcancel"), "assistant", "stalled done"); n != 0 {
		t.Errorf("the cancelled run's reply landed %d times", n)
	}
	// The marks are honoured once: the survivor keeps serving the session.
	if r := b.wait(b.chat("agent:main:deadcancel", "quick after").RunID, 20*time.Second); r.Status != "ok" {
		t.Fatalf("a new run on the survivor: %+v", r)
	}
}
