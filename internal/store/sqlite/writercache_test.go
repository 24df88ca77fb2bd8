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
	_, err = other.ExecContext(ctx, `INSERT INTO messages (session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body)
		VALUES ('agent:main:main', 2, 's1', 'abcdef01', ?, 'user', '', 0, '{"role":"user","content":"y","timestamp":0}')`, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	next, err := appendOne(ctx, st, "agent:main:main", "s1", nil)
	if err != nil || next.Seq != 3 || next.ParentID != "abcdef01" {
		t.Errorf("append after another connection's = seq %d parent %q, %v; want 3 and abcdef01", next.Seq, next.ParentID, err)
	}
}
