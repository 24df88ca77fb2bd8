package runs

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// With replicas, cancelling a run that executes on another replica writes
// the cancel down first (that replica may be dead: whoever takes the run
// over ends it cancelled) and tells the peers; the run's row is left to
// the replica executing it.
func TestClusterCancelOfARunOnAnotherReplica(t *testing.T) {
	fc := newFakeCluster(nil)
	e := newEnv(t, func(o *Options) { o.Cluster = fc })
	deadProcess(t, e.st, "agent:main:there", "r-there", 1)
	got, err := e.rt.Cancel(context.Background(), "r-there")
	if err != nil || got.Status != domain.RunRunning {
		t.Fatalf("cancel of a run executing elsewhere = %s, %v; want it still running here", got.Status, err)
	}
	if !fc.cancelRequested("r-there") {
		t.Fatal("the cancel was not written down")
	}
	if kinds := fc.sentKinds(); !slices.Contains(kinds, replica.SignalCancel) {
		t.Fatalf("signals sent = %v, want a cancel", kinds)
	}
}

// A run executing here is cancelled by a peer's cancel signal, and, when
// that signal is lost, by the cancel the peer wrote down, found on the
// next lease renewal.
func TestClusterPeerCancelReachesARunHere(t *testing.T) {
	for name, deliver := range map[string]func(fc *fakeCluster, r domain.Run){
		"signal": func(fc *fakeCluster, r domain.Run) {
			fc.in <- replica.Signal{Kind: replica.SignalCancel, Replica: "there", SessionKey: r.SessionKey, RunID: r.ID}
		},
		"written down, signal lost": func(fc *fakeCluster, r domain.Run) { fc.requestCancel(r.ID) },
	} {
		t.Run(name, func(t *testing.T) {
			fc := newFakeCluster(nil)
			fc.every = 20 * time.Millisecond
			e := newEnv(t, func(o *Options) { o.Cluster = fc })
			r := e.submit("agent:main:here", "block", nil)
			select {
			case <-e.model.started:
			case <-time.After(10 * time.Second):
				t.Fatal("the run did not start")
			}
			deliver(fc, r)
			if got := e.wait(r.ID); got.Status != domain.RunCancelled {
				t.Fatalf("run after a peer's cancel = %s %q, want cancelled", got.Status, got.Error)
			}
		})
	}
}
