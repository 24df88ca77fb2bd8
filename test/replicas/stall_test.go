package replicas

import (
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestStalledReplicaWritesNothing: a replica is stopped (SIGSTOP) while
// it executes a run, past its lease (1 s); another takes the run over and
// runs it again (attempt 2) to its end. The stalled replica is then
// resumed (SIGCONT) with its model reply in hand: it must not land a
// second reply for the run it no longer holds.
func TestStalledReplicaWritesNothing(t *testing.T) {
	gs := startReplicas(t, 2, setup{lease: 1})
	a, b := gs[0], gs[1]
	r := a.chat("agent:main:stalled", "stall then resume")
	waitRunning(t, b, r.RunID)
	if err := a.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 20*time.Second, "the run taken over (attempt 2)", func() bool {
		var got run
		b.call("GET", "/api/runs/"+r.RunID, nil, &got)
		return got.Attempt == 2 && got.Status == "running"
	})
	// b's attempt runs the same 6 s model call, begun after a's: once it
	// ended, a's call is past due, so a resumes with its reply in hand.
	got := b.wait(r.RunID, 30*time.Second)
	if got.Status != "ok" || got.Attempt != 2 {
		t.Fatalf("run after the take-over: %+v, want ok on attempt 2", got)
	}
	if err := a.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// Let the resumed replica finish what it was doing: its next renewal
	// (a third of the lease) tells it the lease is gone.
	if r := a.wait(a.chat("agent:main:stalled-after", "quick").RunID, 20*time.Second); r.Status != "ok" {
		t.Fatalf("the resumed replica serves again: %+v", r)
	}
	h := b.history("agent:main:stalled")
	if n := count(h, "assistant", "stalled done"); n != 1 {
		t.Errorf("replies stored for the run: %d, want 1: %+v", n, h)
	}
	if n := count(h, "user", "stall then resume"); n != 1 {
		t.Errorf("user message stored %d times, want 1", n)
	}
}
