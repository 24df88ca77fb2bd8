package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// joinTwo opens two stores on one fresh database, each with its Cluster
// (two replicas in one test process).
func joinTwo(t *testing.T, lease time.Duration) (*Store, *Cluster, *Store, *Cluster) {
	t.Helper()
	url := pg.Database(t)
	open := func(name string) (*Store, *Cluster) {
		st, err := Open(t.Context(), url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewCluster(t.Context(), st, ClusterOptions{Lease: lease, Replica: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(); st.Close() })
		return st, c
	}
	s1, c1 := open("one")
	s2, c2 := open("two")
	return s1, c1, s2, c2
}

// queue creates queued runs on session key, in order.
func queue(t *testing.T, st *Store, key string, ids ...string) {
	t.Helper()
	err := st.Update(t.Context(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s-" + key, UpdatedAt: 1}); err != nil {
			return err
		}
		for _, id := range ids {
			if _, _, err := tx.CreateRun(domain.Run{ID: id, SessionKey: key, AgentID: "main", Kind: domain.RunKindChat,
				Lane: domain.LaneMain, Status: domain.RunQueued, Attempt: 1, CreatedAt: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// claim claims run id through c the way the runtime does: ClaimTx, then
// the run moves to running in the same transaction.
func claim(st *Store, c *Cluster, id string) error {
	return st.Update(context.Background(), func(tx domain.Tx) error {
		if err := c.ClaimTx(tx, id); err != nil {
			return err
		}
		r, err := tx.GetRun(id)
		if err != nil {
			return err
		}
		r.Status = domain.RunRunning
		return tx.PutRun(r)
	})
}

// end ends run id through c (ReleaseTx, then a terminal status).
func end(st *Store, c *Cluster, id string) error {
	return st.Update(context.Background(), func(tx domain.Tx) error {
		r, err := tx.GetRun(id)
		if err != nil {
			return err
		}
		if err := c.ReleaseTx(tx, id); err != nil {
			return err
		}
		r.Status = domain.RunOK
		return tx.PutRun(r)
	})
}

func TestClusterClaimsOneLanePerSession(t *testing.T) {
	s1, c1, s2, c2 := joinTwo(t, 5*time.Second)
	queue(t, s1, "agent:main:a", "a1", "a2")
	queue(t, s1, "agent:main:b", "b1")

	// a2 is behind a1: refused, naming a1.
	var busy *replica.LaneBusyError
	if err := claim(s2, c2, "a2"); !errors.As(err, &busy) || busy.Ahead != "a1" {
		t.Fatalf("claim of a2 before a1: %v, want the lane busy with a1 ahead", err)
	}
	if err := claim(s1, c1, "a1"); err != nil {
		t.Fatalf("claim a1: %v", err)
	}
	// Claimed once: the other replica is told it is taken.
	if err := claim(s2, c2, "a1"); !errors.Is(err, replica.ErrRunTaken) {
		t.Fatalf("second claim of a1: %v, want ErrRunTaken", err)
	}
	// a1 runs: a2 waits for the lane, b1 (another session) does not.
	if err := claim(s2, c2, "a2"); !errors.As(err, &busy) || busy.Ahead != "" {
		t.Fatalf("claim of a2 while a1 runs: %v, want the lane busy with a running run", err)
	}
	next, err := c2.Next(t.Context(), "", 10)
	if err != nil || len(next) != 1 || next[0].ID != "b1" {
		t.Fatalf("Next while a1 runs: %v %v, want b1 only", ids(next), err)
	}
	// Only the claimer ends it.
	if err := end(s2, c2, "a1"); !errors.Is(err, replica.ErrTakenOver) {
		t.Fatalf("end of a1 by the replica that does not hold it: %v, want ErrTakenOver", err)
	}
	if err := end(s1, c1, "a1"); err != nil {
		t.Fatalf("end a1: %v", err)
	}
	next, err = c2.Next(t.Context(), "agent:main:a", 10)
	if err != nil || len(next) != 1 || next[0].ID != "a2" {
		t.Fatalf("Next of a after a1 ended: %v %v, want a2", ids(next), err)
	}
	if err := claim(s2, c2, "a2"); err != nil {
		t.Fatalf("claim a2 after a1 ended: %v", err)
	}
}

// TestClusterConcurrentClaims: replicas claiming the same runs at once
// get each exactly once, and never two of one session at a time.
func TestClusterConcurrentClaims(t *testing.T) {
	s1, c1, s2, c2 := joinTwo(t, 5*time.Second)
	var all []string
	for _, key := range []string{"agent:main:x", "agent:main:y", "agent:main:z"} {
		var ids []string
		for i := range 10 {
			ids = append(ids, key+string(rune('a'+i)))
		}
		queue(t, s1, key, ids...)
		all = append(all, ids...)
	}
	var mu sync.Mutex
	won := map[string]int{}
	var wg sync.WaitGroup
	for _, r := range []struct {
		st *Store
		c  *Cluster
	}{{s1, c1}, {s2, c2}, {s1, c1}, {s2, c2}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next, err := r.c.Next(context.Background(), "", 5)
				if err != nil {
					t.Error(err)
					return
				}
				if len(next) == 0 {
					mu.Lock()
					done := len(won) == len(all)
					mu.Unlock()
					if done {
						return
					}
					continue
				}
				for _, n := range next {
					if err := claim(r.st, r.c, n.ID); err != nil {
						continue // taken, or its lane busy
					}
					mu.Lock()
					won[n.ID]++
					mu.Unlock()
					if err := end(r.st, r.c, n.ID); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range all {
		if won[id] != 1 {
			t.Errorf("run %s claimed %d times, want 1", id, won[id])
		}
	}
}

func TestClusterTakeOver(t *testing.T) {
	// The lease must outlast the set-up on a loaded machine; it is
	// renewed just before the claim, then left to expire.
	s1, c1, _, c2 := joinTwo(t, 2*time.Second)
	queue(t, s1, "agent:main:t", "t1")
	if err := c1.Renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := claim(s1, c1, "t1"); err != nil {
		t.Fatal(err)
	}
	// c1 stops renewing; c2 keeps renewing and looks for expired leases.
	deadline := time.Now().Add(10 * time.Second)
	var taken []domain.Run
	for len(taken) == 0 && time.Now().Before(deadline) {
		if err := c2.Renew(t.Context()); err != nil {
			t.Fatal(err)
		}
		var err error
		if taken, err = c2.TakeOver(t.Context()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(taken) != 1 || taken[0].ID != "t1" {
		t.Fatalf("taken over: %v, want t1", ids(taken))
	}
	// The first replica's late end is refused; it learns its lease is gone.
	if err := end(s1, c1, "t1"); !errors.Is(err, replica.ErrTakenOver) {
		t.Fatalf("late end by the expired replica: %v, want ErrTakenOver", err)
	}
	if err := c1.Renew(t.Context()); !errors.Is(err, replica.ErrLeaseLost) {
		t.Fatalf("renewal of the expired lease: %v, want ErrLeaseLost", err)
	}
	if again, err := c2.TakeOver(t.Context()); err != nil || len(again) != 0 {
		t.Fatalf("second take-over: %v %v, want nothing", ids(again), err)
	}
}

func TestClusterTakesOutboxOnce(t *testing.T) {
	s1, c1, _, c2 := joinTwo(t, 5*time.Second)
	err := s1.Update(t.Context(), func(tx domain.Tx) error {
		for _, k := range []string{"o1", "o2", "o3"} {
			if _, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: k, Kind: domain.OutboxDelivery, SessionKey: "agent:main:o",
				Payload: []byte(`{}`), Status: domain.OutboxPending, NextAttemptAt: 10, CreatedAt: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	first, err := c1.TakeOutbox(t.Context(), 100, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("first take: %d items, %v", len(first), err)
	}
	second, err := c2.TakeOutbox(t.Context(), 100, 10)
	if err != nil || len(second) != 1 || second[0].IdempotencyKey != "o3" {
		t.Fatalf("second take: %+v %v, want o3 only", second, err)
	}
	// Past the lease they are due again (their worker died).
	again, err := c2.TakeOutbox(t.Context(), 100+int64(outboxLeaseFactor*5*time.Second/time.Millisecond), 10)
	if err != nil || len(again) != 3 {
		t.Fatalf("take after the lease: %d items, %v, want 3", len(again), err)
	}
}

// TestClusterSignals: a signal one replica sends reaches the other, not
// itself.
func TestClusterSignals(t *testing.T) {
	_, c1, _, c2 := joinTwo(t, 5*time.Second)
	c1.Signal(replica.Signal{Kind: domain.EventRunEnd, RunID: "r1", SessionKey: "agent:main:s"})
	select {
	case s := <-c2.Signals():
		if s.RunID != "r1" || s.Replica != "one" {
			t.Fatalf("received %+v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no signal within 10s")
	}
	select {
	case s := <-c1.Signals():
		t.Fatalf("the sender received its own signal %+v", s)
	case <-time.After(100 * time.Millisecond):
	}
}

func ids(runs []domain.Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}
