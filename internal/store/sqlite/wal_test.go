package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func walSize(t *testing.T, st *Store) int64 {
	t.Helper()
	fi, err := os.Stat(st.Path() + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestWALStaysBounded writes about 20 MB from concurrent writers, which
// keep the writer busy so the WAL never restarts by itself, with the
// restart threshold lowered to 64 frames: the WAL file stays small.
func TestWALStaysBounded(t *testing.T) {
	st := openTemp(t)
	st.walRestart = 64
	label := strings.Repeat("x", 16<<10)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				err := st.Update(t.Context(), func(tx domain.Tx) error {
					return tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d-%d", w, i), AgentID: "main", Label: label})
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if size, s := walSize(t, st), st.Stats(); size > 4<<20 || s.WriterCheckpoints == 0 {
		t.Errorf("WAL is %d bytes after about 20 MB written (%+v); want at most 4 MiB and writer checkpoints", size, s)
	}
}

// TestIdleWriterTruncatesWAL: once the writer has been idle for
// walIdleDelay, the WAL is checkpointed and truncated to nothing.
func TestIdleWriterTruncatesWAL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := openTemp(t)
		err := st.Update(context.Background(), func(tx domain.Tx) error {
			return tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main"})
		})
		if err != nil {
			t.Fatal(err)
		}
		if size := walSize(t, st); size == 0 {
			t.Fatal("nothing in the WAL after a commit")
		}
		time.Sleep(walIdleDelay / 2)
		synctest.Wait()
		if size := walSize(t, st); size == 0 {
			t.Fatal("WAL truncated before the writer was idle long enough")
		}
		time.Sleep(walIdleDelay)
		synctest.Wait()
		if size, s := walSize(t, st), st.Stats(); size != 0 || s.WriterCheckpoints != 1 {
			t.Errorf("idle writer: WAL %d bytes, %+v; want 0 bytes after one writer checkpoint", size, s)
		}
		// Still idle: nothing more to do.
		time.Sleep(3 * walIdleDelay)
		synctest.Wait()
		if s := st.Stats(); s.WriterCheckpoints != 1 {
			t.Errorf("writer checkpoints while idle and clean: %d, want 1", s.WriterCheckpoints)
		}
	})
}

func TestReleaseMemory(t *testing.T) {
	st := openTemp(t)
	if err := st.Update(t.Context(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main"})
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.ReleaseMemory(t.Context()); err != nil {
		t.Fatalf("ReleaseMemory: %v", err)
	}
	if _, err := st.GetSession(t.Context(), "agent:main:main"); err != nil {
		t.Errorf("after ReleaseMemory: %v", err)
	}
	st.Close()
	if err := st.ReleaseMemory(t.Context()); !errors.Is(err, domain.ErrClosed) {
		t.Errorf("ReleaseMemory after Close = %v, want ErrClosed", err)
	}
}

// TestCheckpointTruncateEmptiesWAL: after writes, CheckpointTruncate
// leaves a zero-length WAL and every row in the database file.
func TestCheckpointTruncateEmptiesWAL(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "k", AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
			return err
		}
		msgs := make([]domain.Message, 200)
		for i := range msgs {
			msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("message %d", i)), Timestamp: int64(i)}
		}
		_, err := tx.AppendMessages("k", "s", msgs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CheckpointTruncate(ctx); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("WAL after CheckpointTruncate: %v, %v", fi, err)
	}
	got, err := st.ReadMessages(ctx, "k", domain.MessageQuery{})
	if err != nil || len(got) != 200 {
		t.Fatalf("read %d messages, %v", len(got), err)
	}
}
