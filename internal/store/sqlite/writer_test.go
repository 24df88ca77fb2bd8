package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// holdWriter parks the writer inside an fn until release is closed, so
// Updates started meanwhile queue up and land in one batch.
func holdWriter(t *testing.T, st *Store) (release func()) {
	t.Helper()
	held := make(chan struct{})
	rel := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- st.Update(context.Background(), func(domain.Tx) error {
			close(held)
			<-rel
			return nil
		})
	}()
	<-held
	return func() {
		close(rel)
		if err := <-errc; err != nil {
			t.Errorf("held Update: %v", err)
		}
	}
}

// TestBatchIsolatesFailures runs good, failing and panicking fns in one
// batch: only the failures roll back.
func TestBatchIsolatesFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		errBad := errors.New("bad")
		kinds := []string{"ok", "fail", "ok", "panic", "ok", "storeerr", "ok"}
		release := holdWriter(t, st)
		results := make([]any, len(kinds))
		var wg sync.WaitGroup
		for i, kind := range kinds {
			wg.Go(func() {
				defer func() {
					if v := recover(); v != nil {
						results[i] = v
					}
				}()
				results[i] = st.Update(ctx, func(tx domain.Tx) error {
					if err := tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main"}); err != nil {
						return err
					}
					switch kind {
					case "fail":
						return errBad
					case "panic":
						panic("boom")
					case "storeerr":
						return tx.PutRun(domain.Run{ID: "missing"})
					}
					return nil
				})
			})
		}
		synctest.Wait()
		if d := st.Stats().QueueDepth; d != len(kinds) {
			t.Fatalf("QueueDepth = %d, want %d", d, len(kinds))
		}
		release()
		wg.Wait()
		if s := st.Stats(); s.LastBatchSize != len(kinds) || s.Retries != 1 {
			t.Errorf("last batch had %d fns and %d retries, want %d and 1 (the run without savepoints met the failure)",
				s.LastBatchSize, s.Retries, len(kinds))
		}
		for i, kind := range kinds {
			_, getErr := st.GetSession(ctx, fmt.Sprintf("agent:main:s%d", i))
			switch kind {
			case "ok":
				if results[i] != nil || getErr != nil {
					t.Errorf("fn %d (ok): Update = %v, row: %v", i, results[i], getErr)
				}
			case "fail":
				if err, _ := results[i].(error); !errors.Is(err, errBad) {
					t.Errorf("fn %d (fail): Update = %v, want errBad", i, results[i])
				}
			case "panic":
				if results[i] != "boom" {
					t.Errorf("fn %d (panic): recovered %v, want boom", i, results[i])
				}
			case "storeerr":
				if err, _ := results[i].(error); !errors.Is(err, domain.ErrNotFound) {
					t.Errorf("fn %d (storeerr): Update = %v, want ErrNotFound", i, results[i])
				}
			}
			if kind != "ok" && !errors.Is(getErr, domain.ErrNotFound) {
				t.Errorf("fn %d (%s): its write survived: %v", i, kind, getErr)
			}
		}
	})
}

// TestBatchWithoutFailuresRunsOnce: a batch whose fns all succeed runs
// each fn once, without savepoints, and commits once.
func TestBatchWithoutFailuresRunsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		const n = 5
		release := holdWriter(t, st)
		before := st.Stats()
		var runs [n]int
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				err := st.Update(ctx, func(tx domain.Tx) error {
					runs[i]++ // fns run one at a time, on the writer
					return tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main"})
				})
				if err != nil {
					t.Errorf("fn %d: %v", i, err)
				}
			})
		}
		synctest.Wait()
		release()
		wg.Wait()
		after := st.Stats()
		if after.Retries != before.Retries || after.Commits-before.Commits != 2 || after.LastBatchSize != n {
			t.Errorf("retries %d, commits %d, last batch %d; want 0, 2 (the held fn's and this batch's) and %d",
				after.Retries-before.Retries, after.Commits-before.Commits, after.LastBatchSize, n)
		}
		for i, r := range runs {
			if r != 1 {
				t.Errorf("fn %d ran %d times, want 1", i, r)
			}
		}
	})
}

// TestGoexitInFn checks that runtime.Goexit in fn (t.FailNow from the
// wrong goroutine) fails its batch and leaves a working writer behind.
func TestGoexitInFn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		release := holdWriter(t, st)
		errc := make(chan error, 2)
		go func() {
			errc <- st.Update(ctx, func(tx domain.Tx) error {
				if err := tx.PutSession(domain.Session{Key: "agent:main:a", AgentID: "main"}); err != nil {
					return err
				}
				runtime.Goexit()
				return nil
			})
		}()
		synctest.Wait()
		go func() {
			errc <- st.Update(ctx, func(tx domain.Tx) error {
				return tx.PutSession(domain.Session{Key: "agent:main:b", AgentID: "main"})
			})
		}()
		synctest.Wait()
		release()
		for range 2 {
			if err := <-errc; !errors.Is(err, errGoexit) {
				t.Errorf("Update in a batch with Goexit = %v, want errGoexit", err)
			}
		}
		if err := st.Update(ctx, func(tx domain.Tx) error {
			return tx.PutSession(domain.Session{Key: "agent:main:c", AgentID: "main"})
		}); err != nil {
			t.Fatalf("Update after Goexit: %v", err)
		}
		for key, want := range map[string]bool{"agent:main:a": false, "agent:main:b": false, "agent:main:c": true} {
			_, err := st.GetSession(ctx, key)
			if (err == nil) != want {
				t.Errorf("%s stored = %v, want %v", key, err == nil, want)
			}
		}
	})
}

// TestCheckpointerRuns checks that WAL checkpoints happen in the
// background as commits accumulate.
func TestCheckpointerRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for i := range checkpointEvery {
			err := st.Update(ctx, func(tx domain.Tx) error {
				return tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main"})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if s := st.Stats(); s.Checkpoints != 1 || s.Commits != checkpointEvery {
			t.Errorf("after %d commits: %+v; want 1 checkpoint", checkpointEvery, s)
		}
	})
}
