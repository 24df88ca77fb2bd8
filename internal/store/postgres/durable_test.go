package postgres

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// openDurable opens a store on a fresh database with synchronous_commit on
// for its connections (the test cluster turns it off server-wide), so
// deferred commits are deferred and durable ones flush.
func openDurable(t *testing.T) *Store {
	t.Helper()
	u, err := url.Parse(pg.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("synchronous_commit", "on")
	u.RawQuery = q.Encode()
	st, err := Open(t.Context(), u.String(), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if !st.flush.enabled {
		t.Fatal("synchronous_commit=on in the URL did not reach the session")
	}
	return st
}

func putSession(key string) func(domain.Tx) error {
	return func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: domain.NewID(), UpdatedAt: 1})
	}
}

// A deferred commit is visible at once and durable once a later durable
// commit has flushed the log: its Wait then returns without forcing a
// flush of its own.
func TestDeferredCommitCarriedByLaterDurableCommit(t *testing.T) {
	st := openDurable(t)
	ctx := t.Context()
	d, err := st.UpdateDeferred(ctx, putSession("agent:main:a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetSession(ctx, "agent:main:a"); err != nil {
		t.Fatalf("the deferred write is not visible after UpdateDeferred: %v", err)
	}
	dc, ok := d.(*deferredCommit)
	if !ok || dc.lsn <= 0 {
		t.Fatalf("Durable = %#v, want a deferred commit with a log position", d)
	}
	if err := st.Update(ctx, putSession("agent:main:b")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.flush.covered(dc.lsn); !ok {
		t.Fatalf("after a durable commit the flush position %d is still before the deferred commit's %d", st.flush.flushed, dc.lsn)
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if n := st.ForcedFlushes(); n != 0 {
		t.Errorf("%d forced flushes, want 0 (the durable commit carried it)", n)
	}
}

// With nothing else committing, Wait forces a flush after its grace.
func TestDeferredCommitForcesAFlushWhenAlone(t *testing.T) {
	st := openDurable(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	d, err := st.UpdateDeferred(ctx, putSession("agent:main:a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if n := st.ForcedFlushes(); n != 1 {
		t.Errorf("%d forced flushes, want 1", n)
	}
	if ok, _ := st.flush.covered(d.(*deferredCommit).lsn); !ok {
		t.Error("Wait returned before the flush position reached the commit")
	}
	// A second Wait needs nothing more.
	if err := d.Wait(ctx); err != nil || st.ForcedFlushes() != 1 {
		t.Errorf("second Wait: %v, %d forced flushes", err, st.ForcedFlushes())
	}
}

// Many deferred commits waiting at once share forced flushes.
func TestDeferredCommitsShareFlushes(t *testing.T) {
	st := openDurable(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const n = 32
	ds := make([]domain.Durable, n)
	for i := range ds {
		var err error
		if ds[i], err = st.UpdateDeferred(ctx, putSession("agent:main:s"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, n)
	for _, d := range ds {
		go func() { errs <- d.Wait(ctx) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if f := st.ForcedFlushes(); f < 1 || f > 2 {
		t.Errorf("%d forced flushes for %d commits made before any Wait, want 1 (2 when a waiter came late)", f, n)
	}
}

// A fn that fails commits nothing and returns its error; one that writes
// nothing needs no wait.
func TestDeferredCommitErrorsAndEmpty(t *testing.T) {
	st := openDurable(t)
	ctx := t.Context()
	if _, err := st.UpdateDeferred(ctx, func(domain.Tx) error { return domain.ErrConflict }); err != domain.ErrConflict {
		t.Fatalf("error = %v, want fn's", err)
	}
	d, err := st.UpdateDeferred(ctx, func(domain.Tx) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.(durableNow); !ok {
		t.Errorf("Durable of an empty fn = %T, want durableNow", d)
	}
}

// On a server whose synchronous_commit is off (the test cluster's own
// setting), UpdateDeferred is Update.
func TestDeferredCommitWithSynchronousCommitOff(t *testing.T) {
	st := openFresh(t)
	defer st.Close()
	d, err := st.UpdateDeferred(t.Context(), putSession("agent:main:a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.(durableNow); !ok {
		t.Errorf("Durable = %T, want durableNow", d)
	}
}

// A role that may not call pg_logical_emit_message forces its flushes by
// rewriting schema_version's row instead.
func TestDeferredCommitFlushFallback(t *testing.T) {
	st := openDurable(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st.flush.fallback.Store(true)
	d, err := st.UpdateDeferred(ctx, putSession("agent:main:a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.flush.covered(d.(*deferredCommit).lsn); !ok || st.ForcedFlushes() != 1 {
		t.Errorf("covered %v after %d forced flushes, want covered after 1", ok, st.ForcedFlushes())
	}
}
