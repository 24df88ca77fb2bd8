package runs

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// fakeCluster is a Cluster whose claims the test decides and whose peers'
// signals the test sends.
type fakeCluster struct {
	mu    sync.Mutex
	claim func(id string) error
	next  func() []domain.Run // Next's answer (nil: nothing)
	every time.Duration       // LeaseInterval (default an hour)
	sent  []replica.Signal
	in    chan replica.Signal
	// takeOver answers TakeOver (nil: nothing expired); cancels lists
	// the runs whose cancel was requested (under mu), here or by a peer.
	takeOver func() []domain.Run
	cancels  []string
}

// requestCancel writes down a cancel of run id, as a peer would.
func (f *fakeCluster) requestCancel(id string) {
	f.mu.Lock()
	f.cancels = append(f.cancels, id)
	f.mu.Unlock()
}

func (f *fakeCluster) cancelRequested(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.cancels, id)
}

var _ replica.Cluster = (*fakeCluster)(nil)

func newFakeCluster(claim func(string) error) *fakeCluster {
	return &fakeCluster{claim: claim, in: make(chan replica.Signal, 16)}
}

func (f *fakeCluster) Shared() bool    { return true }
func (f *fakeCluster) Replica() string { return "here" }
func (f *fakeCluster) ClaimTx(_ domain.Tx, id string) error {
	if f.claim == nil {
		return nil
	}
	return f.claim(id)
}
func (f *fakeCluster) ReleaseTx(domain.Tx, string) error { return nil }
func (f *fakeCluster) Next(context.Context, string, int) ([]domain.Run, error) {
	if f.next == nil {
		return nil, nil
	}
	return f.next(), nil
}
func (f *fakeCluster) Renew(context.Context) error { return nil }
func (f *fakeCluster) TakeOver(context.Context) ([]domain.Run, error) {
	if f.takeOver == nil {
		return nil, nil
	}
	return f.takeOver(), nil
}
func (f *fakeCluster) LeaseInterval() time.Duration {
	if f.every == 0 {
		return time.Hour
	}
	return f.every
}
func (f *fakeCluster) Signal(s replica.Signal) {
	f.mu.Lock()
	f.sent = append(f.sent, s)
	f.mu.Unlock()
}
func (f *fakeCluster) Signals() <-chan replica.Signal { return f.in }
func (f *fakeCluster) Leave(context.Context) error    { return nil }
func (f *fakeCluster) RequestCancel(_ context.Context, id string) (domain.RunStatus, error) {
	f.requestCancel(id)
	return domain.RunRunning, nil
}
func (f *fakeCluster) CancelRequestedTx(_ domain.Tx, id string) (bool, error) {
	return f.cancelRequested(id), nil
}
func (f *fakeCluster) CancelsRequested(_ context.Context, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if f.cancelRequested(id) {
			out = append(out, id)
		}
	}
	return out, nil
}

func (f *fakeCluster) sentKinds() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.sent {
		out = append(out, s.Kind)
	}
	return out
}

// TestClusterRefusedClaims: a run whose claim another replica holds
// (taken, or its session's lane held elsewhere) is not executed here; it
// stays queued, and the peers are told it waits.
func TestClusterRefusedClaims(t *testing.T) {
	for name, refuse := range map[string]error{
		"taken":     replica.ErrRunTaken,
		"lane busy": &replica.LaneBusyError{SessionKey: "agent:main:x"},
	} {
		t.Run(name, func(t *testing.T) {
			fc := newFakeCluster(func(string) error { return refuse })
			e := newEnv(t, func(o *Options) { o.Cluster = fc })
			r := e.submit("agent:main:x", "hello", nil)
			waitUntil(t, func() bool { return e.rt.QueueDepth() == 0 && e.rt.ActiveRuns() == 0 })
			got, err := e.st.GetRun(context.Background(), r.ID)
			if err != nil || got.Status != domain.RunQueued {
				t.Fatalf("run after a refused claim: %+v %v, want queued", got, err)
			}
			select {
			case text := <-e.model.started:
				t.Fatalf("the model was called (%q) for a run this replica did not claim", text)
			default:
			}
			if kinds := fc.sentKinds(); len(kinds) == 0 || kinds[0] != replica.SignalQueued {
				t.Fatalf("signals sent: %v, want %s first", kinds, replica.SignalQueued)
			}
		})
	}
}

// TestClusterPeerEndWakesWait: a run ended by another replica (written to
// the store there) wakes a wait here through the peer's run.end signal,
// and the event, read back from the store, reaches this replica's
// listeners marked as a peer's.
func TestClusterPeerEndWakesWait(t *testing.T) {
	fc := newFakeCluster(func(string) error { return replica.ErrRunTaken })
	e := newEnv(t, func(o *Options) { o.Cluster = fc })
	r := e.submit("agent:main:w", "hello", nil)
	type result struct {
		run domain.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := e.rt.Wait(context.Background(), r.ID, time.Minute)
		done <- result{got, err}
	}()
	// The peer runs it and records its end.
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		cur, err := tx.GetRun(r.ID)
		if err != nil {
			return err
		}
		cur.Status, cur.Reply, cur.EndedAt = domain.RunOK, "done there", time.Now().UnixMilli()
		return tx.PutRun(cur)
	})
	if err != nil {
		t.Fatal(err)
	}
	fc.in <- replica.Signal{Kind: domain.EventRunEnd, Replica: "there", SessionKey: r.SessionKey, RunID: r.ID}
	select {
	case res := <-done:
		if res.err != nil || res.run.Status != domain.RunOK || res.run.Reply != "done there" {
			t.Fatalf("wait: %+v %v", res.run, res.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait did not return")
	}
	waitUntil(t, func() bool {
		e.events.mu.Lock()
		defer e.events.mu.Unlock()
		for _, ev := range e.events.events {
			if ev.Kind == domain.EventRunEnd && ev.Replica == "there" && ev.Run != nil && ev.Run.Reply == "done there" {
				return true
			}
		}
		return false
	})
}

// waitUntil polls cond (the runtime's counters or its event log) until it
// holds, for up to 10 s.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestClusterWaitRereads: with replicas, a wait whose run ended elsewhere
// and whose signal never came still returns the ended run (it re-reads
// the run every waitRecheck), long before its timeout.
func TestClusterWaitRereads(t *testing.T) {
	fc := newFakeCluster(func(string) error { return replica.ErrRunTaken })
	e := newEnv(t, func(o *Options) { o.Cluster = fc })
	r := e.submit("agent:main:quiet", "hello", nil)
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		cur, err := tx.GetRun(r.ID)
		if err != nil {
			return err
		}
		cur.Status, cur.Reply = domain.RunOK, "done there"
		return tx.PutRun(cur)
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := e.rt.Wait(context.Background(), r.ID, time.Minute)
	if err != nil || got.Status != domain.RunOK {
		t.Fatalf("wait: %+v %v", got, err)
	}
	if took := time.Since(start); took > 20*waitRecheck {
		t.Fatalf("wait took %s without a signal, want about %s", took, waitRecheck)
	}
}

// TestClusterSweepRunsUnclaimed: a run queued in the store that this
// runtime never heard of (submitted on a replica that then died, its
// signal lost) is found by the periodic look for unclaimed runs and
// executed here.
func TestClusterSweepRunsUnclaimed(t *testing.T) {
	var started atomic.Pointer[env]
	fc := newFakeCluster(nil)
	fc.every = 20 * time.Millisecond
	fc.next = func() []domain.Run {
		e := started.Load()
		if e == nil {
			return nil
		}
		runs, _ := e.st.ListRuns(context.Background(), domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued}})
		return runs
	}
	e := newEnv(t, func(o *Options) { o.Cluster = fc })
	started.Store(e)
	spec := []byte(`{"userMessage":{"role":"user","content":"from elsewhere"}}`)
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "agent:main:orphan", AgentID: "main", SessionID: "sid-orphan", Kind: "other"}); err != nil {
			return err
		}
		_, _, err := tx.CreateRun(domain.Run{ID: "orphan-run", SessionKey: "agent:main:orphan", AgentID: "main", Kind: domain.RunKindChat,
			Lane: domain.LaneMain, Status: domain.RunQueued, Attempt: 1, CreatedAt: 1, Spec: spec})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.rt.Wait(context.Background(), "orphan-run", 30*time.Second)
	if err != nil || got.Status != domain.RunOK || got.Reply != "echo: from elsewhere" {
		t.Fatalf("unclaimed run: %+v %v, want it executed here", got, err)
	}
}
