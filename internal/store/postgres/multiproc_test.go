package postgres

import (
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// Two stores on one database stand for two gateway processes: what the
// SQLite store gets from its one writer must hold between them through
// the database's locks alone.
func TestTwoStoresOneDatabase(t *testing.T) {
	url := pg.Database(t)
	stores := make([]*Store, 2)
	for i := range stores {
		st, err := Open(t.Context(), url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores[i] = st
	}
	const key, sid, perWriter, writers = "agent:main:main", "s1", 40, 6
	if err := stores[0].Update(t.Context(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid})
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	created := make([][]bool, writers)
	for w := range writers {
		st := stores[w%2]
		created[w] = make([]bool, perWriter)
		wg.Go(func() {
			for i := range perWriter {
				err := st.Update(t.Context(), func(tx domain.Tx) error {
					if _, err := tx.AppendMessages(key, sid, []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("w%d-%d", w, i))}}); err != nil {
						return err
					}
					s, err := tx.GetSession(key)
					if err != nil {
						return err
					}
					s.TotalTokens++
					if err := tx.PutSession(s); err != nil {
						return err
					}
					// Every writer races for the same idempotency keys.
					_, c, err := tx.CreateRun(domain.Run{ID: fmt.Sprintf("run-%d-%d", w, i), SessionKey: key, Status: domain.RunQueued, IdempotencyKey: fmt.Sprintf("idem-%d", i)})
					if err != nil {
						return err
					}
					_, c2, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: fmt.Sprintf("out-%d", i), SessionKey: key})
					if c != c2 {
						return fmt.Errorf("run created %v but outbox created %v", c, c2)
					}
					created[w][i] = c
					return err
				})
				if err != nil {
					t.Errorf("writer %d update %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	msgs, err := stores[1].ReadMessages(t.Context(), key, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != writers*perWriter {
		t.Fatalf("%d messages, want %d", len(msgs), writers*perWriter)
	}
	ids := map[string]bool{}
	for j, m := range msgs {
		if m.Seq != int64(j+1) {
			t.Fatalf("message %d has seq %d: seqs not 1..n", j, m.Seq)
		}
		if j > 0 && m.ParentID != msgs[j-1].ID {
			t.Fatalf("seq %d: parent %q, want %q", m.Seq, m.ParentID, msgs[j-1].ID)
		}
		if ids[m.ID] {
			t.Fatalf("id %q twice", m.ID)
		}
		ids[m.ID] = true
	}
	s, err := stores[0].GetSession(t.Context(), key)
	if err != nil || s.TotalTokens != writers*perWriter {
		t.Fatalf("session totalTokens %d (%v), want %d: a read-modify-write was lost", s.TotalTokens, err, writers*perWriter)
	}
	for i := range perWriter {
		n := 0
		for w := range writers {
			if created[w][i] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("idempotency key %d: created %d times, want once", i, n)
		}
	}
	runs, err := stores[0].ListRuns(t.Context(), domain.RunQuery{SessionKey: key})
	if err != nil || len(runs) != perWriter {
		t.Errorf("%d runs (%v), want %d", len(runs), err, perWriter)
	}
	out, err := stores[1].ListOutbox(t.Context(), domain.OutboxQuery{})
	if err != nil || len(out) != perWriter {
		t.Errorf("%d outbox rows (%v), want %d", len(out), err, perWriter)
	}
}

// Two stores on one database are two replicas: Gate excludes between them
// as it does within one store.
func TestGateAcrossStores(t *testing.T) {
	url := pg.Database(t)
	a, err := Open(t.Context(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	storetest.GateExcludes(t, a, b)
}
