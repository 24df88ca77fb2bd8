package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A request moves from queued to taken (by the writer) or to abandoned (by
// a caller whose context ended first); whichever CAS wins decides.
const (
	reqQueued int32 = iota
	reqTaken
	reqAbandoned
)

// request is one Update call waiting for, or inside, a batch.
type request struct {
	fn    func(domain.Tx) error
	state atomic.Int32
	done  chan outcome // writer → caller, buffered: the writer never blocks
}

// outcome is what Update reports: fn's error, the batch's error, or a
// panic of fn to re-raise on the caller's goroutine.
type outcome struct {
	err      error
	panicked bool
	panicVal any
}

// errGoexit answers a batch whose fn called runtime.Goexit (t.FailNow
// from inside fn, for instance) on the writer goroutine.
var errGoexit = errors.New("update: fn called runtime.Goexit; batch rolled back")

// savepoint isolates one fn inside a batch; they never nest.
const savepoint = "switchboard_update"

// Update runs fn in a write transaction and returns after its writes are
// committed, or returns fn's error with none of them written. Calls from
// many goroutines are committed together in batches; fn calls never run
// concurrently (they run one after the other on the writer goroutine). A
// panic in fn rolls back fn's writes and is re-raised by Update. fn must
// not call Update or Close (they would wait for the batch fn is part of),
// and the Tx must not be used after fn returns.
func (s *Store) Update(ctx context.Context, fn func(domain.Tx) error) error {
	if fn == nil {
		return errors.New("update: fn is nil")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	req := &request{fn: fn, done: make(chan outcome, 1)}
	s.mu.RLock()
	if s.closed.Load() {
		s.mu.RUnlock()
		return fmt.Errorf("update: %w", domain.ErrClosed)
	}
	select {
	case s.queue <- req:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return fmt.Errorf("update: %w", ctx.Err())
	}

	var out outcome
	select {
	case out = <-req.done:
	case <-ctx.Done():
		if req.state.CompareAndSwap(reqQueued, reqAbandoned) {
			return fmt.Errorf("update: %w", ctx.Err())
		}
		// The writer has taken fn; its outcome, not ctx, decides.
		out = <-req.done
	}
	if out.panicked {
		panic(out.panicVal)
	}
	return classifyWrite(out.err)
}

// runWriter is the writer goroutine: it drains the queue in batches until
// Close closes it, and checkpoints the WAL when it falls idle.
func (s *Store) runWriter() {
	defer s.wg.Done()
	batch := make([]*request, 0, s.maxBatch)
	idle := time.NewTimer(walIdleDelay)
	defer idle.Stop()
	for {
		var (
			req *request
			ok  bool
		)
		if s.wal.dirty {
			idle.Reset(walIdleDelay)
			select {
			case req, ok = <-s.queue:
				idle.Stop()
			case <-idle.C:
				if !s.idleCheckpoint(context.Background()) {
					// Readers were in the way: wait for work, and try
					// again once the next batch is done.
					req, ok = <-s.queue
					break
				}
				continue
			}
		} else {
			req, ok = <-s.queue
		}
		if !ok {
			return
		}
		batch = append(batch[:0], req)
	fill:
		for len(batch) < s.maxBatch {
			select {
			case r, ok := <-s.queue:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			default:
				break fill
			}
		}
		s.runBatch(batch)
		clear(batch)
		s.catchUpWriter()
		// Let the callers just answered run and queue their next Update, so
		// the next batch is a group instead of whoever came first.
		runtime.Gosched()
	}
}

// runBatch runs every request of batch in one transaction and commits
// once. The fns run first without savepoints: savepoints are not free
// (SQLite copies every page a savepoint's statements change to a
// sub-journal first, about a tenth of the writer's time in a chat turn's
// batch). When one fn fails, the whole transaction is rolled back and the
// batch runs again with a savepoint around each fn, so the failure undoes
// only that fn's writes. domain.Store lets an implementation run fn more
// than once (PostgreSQL re-runs it after a serialization failure), and
// fns are written for that. A batch of one needs no savepoint: if its fn
// fails, the whole transaction rolls back.
func (s *Store) runBatch(batch []*request) {
	// Statements must finish even while callers give up: a half-run batch
	// would fail its other callers too. busy_timeout bounds them instead.
	ctx := context.Background()
	taken := batch[:0]
	for _, r := range batch {
		if r.state.CompareAndSwap(reqQueued, reqTaken) {
			taken = append(taken, r)
		}
	}
	if len(taken) == 0 {
		return
	}
	start := time.Now()
	outs := make([]outcome, len(taken))
	isolate := false
	for {
		done, retry := s.runPass(ctx, taken, outs, isolate)
		if done {
			return
		}
		if !retry {
			break
		}
		isolate = true
	}
	if !isolate && len(taken) == 1 && (outs[0].err != nil || outs[0].panicked) {
		// The lone fn failed: nothing of the transaction is kept.
		if err := s.execW(ctx, "ROLLBACK"); err != nil {
			s.cache.reset()
		}
		taken[0].done <- outs[0]
		return
	}
	err := s.execW(ctx, "COMMIT")
	if err != nil {
		_ = s.execW(ctx, "ROLLBACK")
		s.cache.reset()
		err = fmt.Errorf("update: commit: %w", err)
		for i := range outs {
			if outs[i].err == nil && !outs[i].panicked {
				outs[i].err = err
			}
		}
	} else {
		s.commits.Add(1)
		s.lastBatch.Store(int64(len(taken)))
		s.lastCommitDur.Store(int64(time.Since(start)))
		s.committedIndex()
		s.afterCommit(ctx)
	}
	for i, r := range taken {
		r.done <- outs[i]
	}
}

// runPass begins the batch's transaction and runs every fn of taken in
// it, each in its own savepoint when isolate is set, filling outs. done
// means the batch is over and every caller answered (the transaction
// could not begin, or broke); retry means a fn failed in a batch of
// several without savepoints: the transaction was rolled back and the
// batch has to run again isolated. Otherwise the transaction is open with
// every fn's outcome in outs, for the caller to commit.
func (s *Store) runPass(ctx context.Context, taken []*request, outs []outcome, isolate bool) (done, retry bool) {
	s.writeFailed = nil
	s.pendingIndex = s.pendingIndex[:0]
	s.pendingLag = 0
	if err := s.execW(ctx, "BEGIN IMMEDIATE"); err != nil {
		answer(taken, fmt.Errorf("update: begin: %w", err))
		return true, false
	}
	if err := s.checkDataVersion(); err != nil {
		_ = s.execW(ctx, "ROLLBACK")
		answer(taken, fmt.Errorf("update: %w", err))
		return true, false
	}

	finished := false
	defer func() {
		if finished {
			return
		}
		// Only runtime.Goexit in fn unwinds through here (runOne recovers
		// panics). This goroutine is ending: undo the batch, answer its
		// callers and hand the queue to a new writer goroutine.
		_ = s.execW(ctx, "ROLLBACK")
		s.cache.reset()
		answer(taken, errGoexit)
		s.wg.Add(1)
		go s.runWriter()
	}()

	for i, r := range taken {
		var fatal error
		outs[i], fatal = s.runOne(ctx, r, isolate)
		if fatal != nil {
			// The transaction may already be gone (SQLite rolls back by
			// itself on some I/O errors); a failed ROLLBACK adds nothing.
			_ = s.execW(ctx, "ROLLBACK")
			s.cache.reset()
			finished = true
			answer(taken, fatal)
			return true, false
		}
		if !isolate && len(taken) > 1 && (outs[i].err != nil || outs[i].panicked) {
			// The fns before this one must keep their writes and this
			// one's must go: without savepoints, only all of it can go.
			_ = s.execW(ctx, "ROLLBACK")
			s.cache.reset()
			s.retries.Add(1)
			finished = true
			clear(outs)
			return false, true
		}
	}
	finished = true
	return false, false
}

// checkDataVersion forgets the writer's cache when another connection
// (another process: this one writes only through the writer) committed
// since the last batch. It runs inside the batch's transaction, which holds
// the write lock, so nothing can commit between the check and the batch.
func (s *Store) checkDataVersion() error {
	// Every batch asks, so the question skips database/sql (rawexec.go).
	var v int64
	err := s.withDriver(func(rc rawConn) error {
		var err error
		v, err = rc.queryInt("PRAGMA data_version")
		return err
	})
	if err != nil {
		return fmt.Errorf("data version: %w", err)
	}
	if v != s.cache.dataVersion {
		s.cache.reset()
		// Another process may have deleted messages whose rowids this
		// one's remembered index texts name.
		s.unindexed = s.unindexed[:0]
		s.cache.dataVersion = v
	}
	return nil
}

// runOne runs r's fn, inside a savepoint when isolate is set. A failed or
// panicking fn has its writes rolled back (by the savepoint here, or by the
// caller rolling back the transaction); fatal is an error that breaks the
// whole transaction.
func (s *Store) runOne(ctx context.Context, r *request, isolate bool) (out outcome, fatal error) {
	if isolate {
		if err := s.execW(ctx, "SAVEPOINT "+savepoint); err != nil {
			return out, fmt.Errorf("update: savepoint: %w", err)
		}
	}
	// t.index reuses the last fn's slice: an import's fn remembers
	// thousands of index texts, and growing a fresh slice for each was a
	// twentieth of the bytes an import allocated. It is handed back once
	// keepIndex has copied the rows out.
	t := &tx{s: s, ctx: ctx, index: s.txIndex[:0]}
	defer func() {
		clear(t.index) // let the texts go
		s.txIndex = t.index[:0]
	}()
	func() {
		defer func() {
			t.finish()
			if v := recover(); v != nil {
				out = outcome{panicked: true, panicVal: v}
			}
		}()
		out.err = r.fn(t)
	}()
	s.updates.Add(1)
	if werr := s.writeFailed; werr != nil {
		// SQLite may have rolled the whole transaction back by itself
		// (SQLITE_FULL, SQLITE_IOERR); later statements would then commit
		// one by one. Nothing of the batch may be kept or reported done.
		s.writeFailed = nil
		s.cache.forget(t.touched)
		s.cache.forgetRuns(t.touchedRuns)
		return out, werr
	}
	failed := out.err != nil || out.panicked
	if failed {
		s.cache.forget(t.touched)
		s.cache.forgetRuns(t.touchedRuns)
	}
	if !isolate {
		if !failed {
			s.keepIndex(t)
		}
		return out, nil
	}
	if !failed {
		if err := s.execW(ctx, "RELEASE "+savepoint); err != nil {
			return out, fmt.Errorf("update: release savepoint: %w", err)
		}
		s.keepIndex(t)
		return out, nil
	}
	if err := s.execW(ctx, "ROLLBACK TO "+savepoint); err != nil {
		return out, fmt.Errorf("update: roll back savepoint: %w", err)
	}
	if err := s.execW(ctx, "RELEASE "+savepoint); err != nil {
		return out, fmt.Errorf("update: release savepoint: %w", err)
	}
	return out, nil
}

// answer fails every request of a batch with err. Sends never block: done
// has room for the one answer each request gets.
func answer(reqs []*request, err error) {
	for _, r := range reqs {
		r.done <- outcome{err: err}
	}
}

// execW runs a statement on the write connection through the statement cache.
func (s *Store) execW(ctx context.Context, query string, args ...any) error {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}
