package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// testConcurrentAppends runs 16 writers appending to one transcript while
// 8 readers read it. Each fn also does a read-modify-write of the session
// row, which only ends right if fns are serialized.
func testConcurrentAppends(t *testing.T, st domain.Store) {
	const (
		key     = "agent:main:main"
		sid     = "s1"
		writers = 16
		appends = 200
		readers = 8
	)
	ctx := ctxT(t)
	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: sid})

	var writersWG, readersWG sync.WaitGroup
	done := make(chan struct{})
	// Readers read when a write has landed, instead of spinning: spinning
	// readers would starve the writers of CPU and prove nothing more.
	progress := make(chan struct{}, readers)
	for r := range readers {
		readersWG.Go(func() {
			for {
				select {
				case <-done:
					return
				case <-progress:
				}
				if r%2 == 0 {
					msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{Limit: 20})
					if err != nil {
						t.Errorf("reader %d: ReadMessages: %v", r, err)
						return
					}
					for j := 1; j < len(msgs); j++ {
						if msgs[j].Seq <= msgs[j-1].Seq {
							t.Errorf("reader %d: seq %d after %d", r, msgs[j].Seq, msgs[j-1].Seq)
							return
						}
					}
				} else {
					rows, err := st.ListSessions(ctx, domain.SessionQuery{Limit: 10})
					if err != nil || len(rows) != 1 {
						t.Errorf("reader %d: ListSessions = %d rows, %v; want 1", r, len(rows), err)
						return
					}
				}
			}
		})
	}
	for w := range writers {
		writersWG.Go(func() {
			for i := range appends {
				err := st.Update(ctx, func(tx domain.Tx) error {
					stored, err := tx.AppendMessages(key, sid, []domain.Message{userMsg(fmt.Sprintf("w%02d-%03d", w, i), int64(i))})
					if err != nil {
						return err
					}
					sess, err := tx.GetSession(key)
					if err != nil {
						return err
					}
					sess.TotalTokens++
					sess.UpdatedAt = stored[0].Seq
					return tx.PutSession(sess)
				})
				if err != nil {
					t.Errorf("writer %d: Update %d: %v", w, i, err)
					return
				}
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		})
	}
	writersWG.Wait()
	close(done)
	readersWG.Wait()
	if t.Failed() {
		return
	}

	msgs := readMsgs(t, st, key, domain.MessageQuery{})
	if len(msgs) != writers*appends {
		t.Fatalf("read %d messages, want %d", len(msgs), writers*appends)
	}
	seen := map[string]bool{}
	next := make([]int, writers) // each writer's messages keep their order
	for j, m := range msgs {
		if j > 0 && m.Seq <= msgs[j-1].Seq {
			t.Fatalf("seq %d after %d: not strictly increasing", m.Seq, msgs[j-1].Seq)
		}
		text := m.Content.Text()
		if seen[text] {
			t.Fatalf("message %q stored twice", text)
		}
		seen[text] = true
		var w, i int
		if _, err := fmt.Sscanf(text, "w%02d-%03d", &w, &i); err != nil || w >= writers {
			t.Fatalf("unexpected message %q", text)
		}
		if i != next[w] {
			t.Fatalf("writer %d: message %d stored where %d was due", w, i, next[w])
		}
		next[w]++
	}
	sess, err := st.GetSession(ctx, key)
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	if sess.TotalTokens != writers*appends || sess.UpdatedAt != msgs[len(msgs)-1].Seq {
		t.Errorf("session after all writers: totalTokens %d updatedAt %d; want %d and the last seq %d (lost update?)",
			sess.TotalTokens, sess.UpdatedAt, writers*appends, msgs[len(msgs)-1].Seq)
	}
}
