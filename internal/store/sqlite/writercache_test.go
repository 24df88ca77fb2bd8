package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func appendOne(ctx context.Context, st *Store, key, sid string, fail error) (domain.Message, error) {
	var out []domain.Message
	err := st.Update(ctx, func(tx domain.Tx) error {
		var err error
		out, err = tx.AppendMessages(key, sid, []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("x")}})
		if err != nil {
			return err
		}
		return fail
	})
	if err != nil {
		return domain.Message{}, err
	}
	return out[0], nil
}

// TestWriterCacheForgetsRollbacks: an append whose fn fails is rolled
// back, alone in its transaction or in a batch with others, and the next
// append of the key continues from what is stored.
func TestWriterCacheForgetsRollbacks(t *testing.T) {
	errBad := errors.New("bad")
	for _, batched := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			st := openTemp(t)
			first, err := appendOne(ctx, st, "agent:main:main", "s1", nil)
			if err != nil {
				t.Fatal(err)
			}
			var release func()
			if batched {
				release = holdWriter(t, st)
			}
			var wg sync.WaitGroup
			wg.Go(func() {
				if _, err := appendOne(ctx, st, "agent:main:main", "s1", errBad); !errors.Is(err, errBad) {
					t.Errorf("failing append: %v", err)
				}
			})
			if batched {
				wg.Go(func() {
					if _, err := appendOne(ctx, st, "agent:main:other", "s1", nil); err != nil {
						t.Errorf("other append: %v", err)
					}
				})
				synctest.Wait()
				if d := st.Stats().QueueDepth; d != 2 {
					t.Fatalf("QueueDepth = %d, want 2", d)
				}
				release()
			}
			wg.Wait()
			next, err := appendOne(ctx, st, "agent:main:main", "s1", nil)
			if err != nil || next.Seq != 2 || next.ParentID != first.ID {
				t.Errorf("batched=%v: append after a rolled-back one = seq %d parent %q, %v; want seq 2 parent %q",
					batched, next.Seq, next.ParentID, err, first.ID)
			}
		})
	}
}

// TestWriterCacheSeesOtherConnections: a message that another connection
// (another process) appended is seen by the next append.
func TestWriterCacheSeesOtherConnections(t *testing.T) {
	ctx := t.Context()
	st := openTemp(t)
	first, err := appendOne(ctx, st, "agent:main:main", "s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.ExecContext(ctx, `INSERT INTO messages (gen, seq, id, parent_id, role, run_id, timestamp, body)
		VALUES ((SELECT gen FROM message_gens WHERE session_key = 'agent:main:main' AND session_id = 's1'),
			2, unhex('abcdef01'), ?, 0, '', 0, '{"role":"user","content":"y","timestamp":0}')`, packedArg(first.ID))
	if err != nil {
		t.Fatal(err)
	}
	next, err := appendOne(ctx, st, "agent:main:main", "s1", nil)
	if err != nil || next.Seq != 3 || next.ParentID != "abcdef01" {
		t.Errorf("append after another connection's = seq %d parent %q, %v; want 3 and abcdef01", next.Seq, next.ParentID, err)
	}
}

// TestWriterCacheAccounts: AddUsage on an account the writer holds adds
// to what is stored, through rolled-back charges, PutAccount, another
// connection's write and DeleteSession.
func TestWriterCacheAccounts(t *testing.T) {
	ctx := t.Context()
	st := openTemp(t)
	const key = "agent:main:main"
	errBad := errors.New("bad")
	charge := func(in int64, cost float64, fail error) error {
		return st.Update(ctx, func(tx domain.Tx) error {
			if _, err := tx.AddUsage(key, "agent:main:parent", true, domain.UsageTotals{InputTokens: in, OutputTokens: 1, CostUSD: cost, Runs: 1}); err != nil {
				return err
			}
			return fail
		})
	}
	stored := func() domain.Account {
		t.Helper()
		m, err := st.GetAccounts(ctx, []string{key})
		if err != nil {
			t.Fatal(err)
		}
		return m[key]
	}
	want := func(step string, in, runs int64, cost float64) {
		t.Helper()
		a := stored()
		if a.Usage.Self.InputTokens != in || a.Usage.Tree.InputTokens != in || a.Usage.Self.Runs != runs ||
			a.Usage.Self.OutputTokens != runs || a.Usage.Self.CostUSD != cost || a.SpawnedBy != "agent:main:parent" {
			t.Fatalf("%s: stored account %+v; want input %d, runs %d, cost %v, spawnedBy agent:main:parent", step, a, in, runs, cost)
		}
	}
	if err := charge(10, 0.5, nil); err != nil {
		t.Fatal(err)
	}
	if err := charge(5, 0.25, nil); err != nil {
		t.Fatal(err)
	}
	want("two charges", 15, 2, 0.75)
	if err := charge(100, 1, errBad); !errors.Is(err, errBad) {
		t.Fatalf("failing charge: %v", err)
	}
	if err := charge(1, 0, nil); err != nil {
		t.Fatal(err)
	}
	want("after a rolled-back charge", 16, 3, 0.75)

	a := stored()
	a.Budget.Tokens = 1000
	a.Usage.Self.InputTokens = 50
	a.Usage.Tree.InputTokens = 50
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.PutAccount(a) }); err != nil {
		t.Fatal(err)
	}
	if err := charge(2, 0, nil); err != nil {
		t.Fatal(err)
	}
	want("after PutAccount", 52, 4, 0.75)
	if got := stored().Budget.Tokens; got != 1000 {
		t.Fatalf("budget after a charge = %d, want 1000 (PutAccount's)", got)
	}

	other, err := sql.Open("sqlite", st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, `UPDATE session_accounts SET self_input = self_input + 1000, tree_input = tree_input + 1000 WHERE session_key = ?`, key); err != nil {
		t.Fatal(err)
	}
	if err := charge(1, 0, nil); err != nil {
		t.Fatal(err)
	}
	want("after another connection's write", 1053, 5, 0.75)

	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.DeleteSession(key) }); err != nil {
		t.Fatal(err)
	}
	if err := charge(7, 0, nil); err != nil {
		t.Fatal(err)
	}
	want("after DeleteSession", 7, 1, 0)
}
