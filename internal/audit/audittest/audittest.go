// Package audittest is the conformance suite of a store's audit log: every
// store that keeps one runs it.
package audittest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Store is a store under test with a way to change its audit_log table
// behind the chain's back, as an intruder with the database would.
type Store interface {
	domain.Store
	audit.Store
}

// Run runs the suite. open returns a fresh store; tamper runs one SQL
// statement (without parameters) on it directly.
func Run(t *testing.T, open func(t *testing.T) Store, tamper func(t *testing.T, s Store, sql string)) {
	t.Run("RandomOperationsVerify", func(t *testing.T) {
		s := open(t)
		n := randomOperations(t, s, 100)
		checked, brk, err := audit.VerifyStore(t.Context(), s, 7)
		if err != nil || brk != nil {
			t.Fatalf("verify after %d appends: %v %v", n, brk, err)
		}
		st := mustState(t, s)
		if st.Head.Seq != int64(n) || checked != st.Head.Seq-st.Anchor.Seq {
			t.Fatalf("head %d, anchor %d, checked %d; appended %d", st.Head.Seq, st.Anchor.Seq, checked, n)
		}
	})
	t.Run("EditAndDeleteReportedWithPosition", func(t *testing.T) {
		s := open(t)
		appendN(t, s, 20)
		before := list(t, s)
		tamper(t, s, "UPDATE audit_log SET detail = 'nothing happened' WHERE seq = 7")
		wantBreak(t, s, 7)
		tamper(t, s, fmt.Sprintf("UPDATE audit_log SET detail = '%s' WHERE seq = 7", before[6].Detail))
		wantBreak(t, s, 0)
		// An edit that recomputes the record's own hash breaks its link.
		e := before[11].Entry
		e.Outcome = "refused"
		tamper(t, s, fmt.Sprintf("UPDATE audit_log SET outcome = 'refused', hash = '%s' WHERE seq = 12", audit.Seal(before[11].Prev, 12, e)))
		wantBreak(t, s, 13)
		tamper(t, s, fmt.Sprintf("UPDATE audit_log SET outcome = '%s', hash = '%s' WHERE seq = 12", before[11].Outcome, before[11].Hash))
		wantBreak(t, s, 0)
		tamper(t, s, "DELETE FROM audit_log WHERE seq = 15")
		wantBreak(t, s, 15)
	})
	t.Run("DeletedTailReported", func(t *testing.T) {
		s := open(t)
		appendN(t, s, 5)
		tamper(t, s, "DELETE FROM audit_log WHERE seq >= 4")
		wantBreak(t, s, 4)
	})
	t.Run("PruneKeepsChainVerifiable", func(t *testing.T) {
		s := open(t)
		appendN(t, s, 30) // At = 1..30
		removed, err := s.PruneAudit(t.Context(), 0, 10)
		if err != nil || removed != 20 {
			t.Fatalf("prune to 10: removed %d, %v", removed, err)
		}
		removed, err = s.PruneAudit(t.Context(), 25, 0) // by age: At < 25
		if err != nil || removed != 4 {
			t.Fatalf("prune by age: removed %d, %v", removed, err)
		}
		st := mustState(t, s)
		if st.Anchor.Seq != 24 || st.Head.Seq != 30 {
			t.Fatalf("after prune: %+v", st)
		}
		wantBreak(t, s, 0)
		appendN(t, s, 2)
		wantBreak(t, s, 0)
		tamper(t, s, "DELETE FROM audit_log WHERE seq = 25")
		wantBreak(t, s, 25)
	})
	t.Run("RolledBackAppendLeavesNoRecord", func(t *testing.T) {
		s := open(t)
		appendN(t, s, 2)
		boom := errors.New("boom")
		err := s.Update(t.Context(), func(tx domain.Tx) error {
			if err := audit.AppendTx(tx, audit.Entry{At: 9, Kind: audit.KindAdmin, Op: "rolled back"}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("update: %v", err)
		}
		appendN(t, s, 1)
		if recs := list(t, s); len(recs) != 3 || recs[2].Op == "rolled back" {
			t.Fatalf("records %+v", recs)
		}
		wantBreak(t, s, 0)
	})
	t.Run("ListNewestFirstByKind", func(t *testing.T) {
		s := open(t)
		appendN(t, s, 9) // kinds cycle through audit.Kinds()
		got, err := s.ListAudit(t.Context(), audit.Query{Desc: true, Kinds: []audit.Kind{audit.KindSpawn, audit.KindMessage}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Kind != audit.KindSpawn || got[1].Kind != audit.KindMessage || got[0].Seq <= got[1].Seq {
			t.Fatalf("newest first by kind: %+v", got)
		}
		page, err := s.ListAudit(t.Context(), audit.Query{Desc: true, Before: 5, Limit: 2})
		if err != nil || len(page) != 2 || page[0].Seq != 4 || page[1].Seq != 3 {
			t.Fatalf("page before 5: %+v %v", page, err)
		}
	})
}

// randomOperations appends through a random mix of transactions: one or
// several entries, with other writes, rolled back, and several at once.
// It returns how many records were committed.
func randomOperations(t *testing.T, s Store, ops int) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(ops), 31))
	kinds := audit.Kinds()
	committed := 0
	for i := range ops {
		entry := func(j int) audit.Entry {
			return audit.Entry{At: int64(1000 + i), Kind: kinds[rng.IntN(len(kinds))], Actor: "operator",
				Op: fmt.Sprintf("op-%d-%d", i, j), Target: fmt.Sprintf("agent:main:s%d", rng.IntN(5)), Detail: "é\x00 text"}
		}
		switch rng.IntN(4) {
		case 0: // several entries with another write
			n := 1 + rng.IntN(3)
			entries := make([]audit.Entry, n)
			for j := range entries {
				entries[j] = entry(j)
			}
			key := fmt.Sprintf("agent:main:s%d", i)
			if err := s.Update(t.Context(), func(tx domain.Tx) error {
				if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: fmt.Sprintf("id-%d", i), CreatedAt: 1, UpdatedAt: 1}); err != nil {
					return err
				}
				for _, e := range entries {
					if err := audit.AppendTx(tx, e); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatalf("op %d: %v", i, err)
			}
			committed += n
		case 1: // rolled back
			e := entry(0)
			_ = s.Update(t.Context(), func(tx domain.Tx) error {
				if err := audit.AppendTx(tx, e); err != nil {
					return err
				}
				return errors.New("rolled back")
			})
		case 2: // several writers at once
			n := 2 + rng.IntN(4)
			entries := make([]audit.Entry, n)
			for j := range entries {
				entries[j] = entry(j)
			}
			log := audit.NewLog(s, nil, nil)
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for _, e := range entries {
				wg.Go(func() { errs <- log.Record(context.Background(), e) })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
			}
			committed += n
		default:
			if err := audit.NewLog(s, nil, nil).Record(t.Context(), entry(0)); err != nil {
				t.Fatalf("op %d: %v", i, err)
			}
			committed++
		}
	}
	return committed
}

// appendN appends n records with At = 1..n, kinds in audit.Kinds() order.
func appendN(t *testing.T, s Store, n int) {
	t.Helper()
	kinds := audit.Kinds()
	st := mustState(t, s)
	for i := range n {
		seq := st.Head.Seq + int64(i) + 1
		e := audit.Entry{At: seq, Kind: kinds[(seq-1)%int64(len(kinds))], Actor: "operator", Surface: "ws",
			Op: "sessions.patch", Target: fmt.Sprintf("agent:main:k%d", seq), Outcome: "ok", Detail: fmt.Sprintf("d%d", seq)}
		if err := s.Update(t.Context(), func(tx domain.Tx) error { return audit.AppendTx(tx, e) }); err != nil {
			t.Fatal(err)
		}
	}
}

func list(t *testing.T, s Store) []audit.Record {
	t.Helper()
	st := mustState(t, s)
	recs, err := s.ListAudit(t.Context(), audit.Query{After: st.Anchor.Seq, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func mustState(t *testing.T, s Store) audit.State {
	t.Helper()
	st, err := s.AuditState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// wantBreak verifies s and wants the first break at seq (0: none).
func wantBreak(t *testing.T, s Store, seq int64) {
	t.Helper()
	_, brk, err := audit.VerifyStore(t.Context(), s, 4)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case seq == 0 && brk != nil:
		t.Fatalf("verify: %v; want the chain to hold", brk)
	case seq != 0 && brk == nil:
		t.Fatalf("verify found nothing; want a break at %d", seq)
	case seq != 0 && brk.Seq != seq:
		t.Fatalf("verify: %v; want the break at %d", brk, seq)
	}
}
