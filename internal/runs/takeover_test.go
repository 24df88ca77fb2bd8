package runs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// With replicas, the runs of a replica whose lease expired are taken over
// while this one serves (docs/deployment.md, "Several gateways"): the
// crash rule applies — a run none of whose tool calls ran is queued again
// and runs here as its second attempt — except that a run whose cancel was
// requested (perhaps while its replica was dead) ends cancelled instead of
// running again.
func TestClusterTakeOverAppliesTheCrashRule(t *testing.T) {
	var st atomic.Pointer[env]
	var handed atomic.Bool
	fc := newFakeCluster(nil)
	fc.every = 20 * time.Millisecond
	fc.cancels = []string{"r-cancelled"}
	fc.next = func() []domain.Run {
		e := st.Load()
		if e == nil {
			return nil
		}
		runs, _ := e.st.ListRuns(context.Background(), domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued}})
		return runs
	}
	// The dead replica's lease expires after this one started.
	expired := make(chan struct{})
	fc.takeOver = func() []domain.Run {
		select {
		case <-expired:
		default:
			return nil
		}
		e := st.Load()
		if e == nil || handed.Swap(true) {
			return nil
		}
		runs, _ := e.st.ListRuns(context.Background(), domain.RunQuery{Statuses: []domain.RunStatus{domain.RunRunning}})
		return runs
	}
	e := newEnv(t, func(o *Options) { o.Cluster = fc })
	deadProcess(t, e.st, "agent:main:again", "r-again", 1)
	deadProcess(t, e.st, "agent:main:cancelled", "r-cancelled", 1)
	st.Store(e)
	close(expired)

	again, err := e.rt.Wait(context.Background(), "r-again", 30*time.Second)
	if err != nil || again.Status != domain.RunOK || again.Attempt != 2 || again.Reply != "echo: hello" {
		t.Fatalf("taken-over run = %s attempt %d %q, %v; want ok here on attempt 2", again.Status, again.Attempt, again.Reply, err)
	}
	cancelled, err := e.rt.Wait(context.Background(), "r-cancelled", 30*time.Second)
	if err != nil || cancelled.Status != domain.RunCancelled || cancelled.Attempt != 1 {
		t.Fatalf("taken-over run with a cancel requested = %s attempt %d, %v; want cancelled, not run again", cancelled.Status, cancelled.Attempt, err)
	}
	if n := countRole(t, e.st, "agent:main:cancelled", "r-cancelled", domain.RoleAssistant); n != 0 {
		t.Fatalf("the cancelled run was answered %d times, want never", n)
	}
}
