package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Deferred commits (domain.DeferredStore). A chat turn is two write
// transactions: the one that records the message and starts the run, and
// the one that stores the reply and ends it. Each durable commit waits for
// the server to flush its log (an fdatasync),
// and that wait is a large share of a turn's latency. The first transaction can
// instead commit asynchronously (synchronous_commit off for it alone):
// PostgreSQL's log is one sequence, so the second transaction's durable
// commit flushes the first one too. The caller acknowledges nothing and
// shows nothing of the first transaction until Durable.Wait says it is on
// disk; a turn that ends quickly pays one flush instead of two.
//
// Positions: the deferred commit reads pg_current_wal_insert_lsn() after
// its COMMIT (in the same round trip), a position at or past its commit
// record. It is durable once the server's flush position reaches it. While
// a deferred commit waits, every durable commit of this store reads
// pg_current_wal_flush_lsn() after its COMMIT (same round trip again), so
// the waiters learn of the flushes other transactions make. When none
// comes within flushGrace, the waiter forces one (flushBarrier).

// flushGrace is how long a deferred commit waits for another transaction's
// flush to carry it before forcing one: long enough for a quick turn's end
// to come by, short against a model call.
const flushGrace = 5 * time.Millisecond

const (
	insertLSNQuery = `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint`
	flushLSNQuery  = `SELECT (pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::bigint`
	// flushBarrierSQL writes one log record in a transaction of its own,
	// so its durable commit flushes the log up to there (a transaction
	// that writes nothing is not flushed). A logical message goes to the
	// log only; no table is touched.
	flushBarrierSQL = `SELECT pg_logical_emit_message(true, 'switchboard', 'flush')`
	// flushBarrierFallbackSQL does the same for a role that may not call
	// pg_logical_emit_message: it rewrites the one row of schema_version
	// unchanged (a new row version is a log record), taking its lock.
	flushBarrierFallbackSQL = `UPDATE schema_version SET version = version`
	// asyncCommitSQL makes the commit of the transaction it is sent in
	// asynchronous; it is sent just before the COMMIT.
	asyncCommitSQL = `SET LOCAL synchronous_commit = off`
)

// flushTracker follows the server's flush position as this store learns
// it, for the deferred commits waiting on it.
type flushTracker struct {
	// enabled: the server's synchronous_commit is not off, so a durable
	// commit flushes (read at Open). When off, every commit is as
	// durable as a deferred one and UpdateDeferred is Update.
	enabled bool

	mu      sync.Mutex
	flushed int64 // highest flush position seen
	wanted  int64 // highest position a deferred commit waits for
	// changed is closed (and replaced) when flushed advances.
	changed chan struct{}
	// barrier is non-nil while a forced flush runs; closed when it ends.
	barrier chan struct{}
	// forced counts the forced flushes, deferred the deferred commits
	// (tests, metrics).
	forced, deferred atomic.Int64
	// fallback: pg_logical_emit_message was refused; forced flushes use
	// flushBarrierFallbackSQL.
	fallback atomic.Bool
}

func (f *flushTracker) init(enabled bool) {
	f.enabled = enabled
	f.changed = make(chan struct{})
}

// waiting reports whether a deferred commit waits for a flush that has not
// been seen, so durable commits should report the flush position.
func (f *flushTracker) waiting() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wanted > f.flushed
}

func (f *flushTracker) want(lsn int64) {
	f.mu.Lock()
	f.wanted = max(f.wanted, lsn)
	f.mu.Unlock()
}

// advance records a flush position read from the server.
func (f *flushTracker) advance(lsn int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if lsn > f.flushed {
		f.flushed = lsn
		close(f.changed)
		f.changed = make(chan struct{})
	}
}

// covered reports whether lsn is durable, and else the channel closed at
// the next advance.
func (f *flushTracker) covered(lsn int64) (bool, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushed >= lsn, f.changed
}

// ForcedFlushes is how many flushes deferred commits have forced because
// no other durable commit carried them within their grace.
func (s *Store) ForcedFlushes() int64 { return s.flush.forced.Load() }

// DeferredCommits is how many UpdateDeferred calls committed
// asynchronously.
func (s *Store) DeferredCommits() int64 { return s.flush.deferred.Load() }

// UpdateDeferred is Update with an asynchronous commit: it returns once
// fn's writes are committed and visible, and the Durable says when they
// are on disk. On a server whose synchronous_commit is off it is Update.
func (s *Store) UpdateDeferred(ctx context.Context, fn func(domain.Tx) error) (domain.Durable, error) {
	if !s.flush.enabled {
		return durableNow{}, s.Update(ctx, fn)
	}
	lsn, err := s.update(ctx, fn, true)
	if err != nil {
		return nil, err
	}
	if lsn == 0 {
		return durableNow{}, nil // fn wrote nothing
	}
	if lsn > 0 {
		s.flush.want(lsn)
	}
	s.flush.deferred.Add(1)
	return &deferredCommit{s: s, lsn: lsn}, nil
}

// durableNow is the Durable of a commit that needs no wait.
type durableNow struct{}

func (durableNow) Wait(context.Context) error { return nil }

// deferredCommit is the Durable of one asynchronous commit at log position
// lsn (-1: unknown, the position could not be read; a forced flush that
// starts after the commit covers it).
type deferredCommit struct {
	s   *Store
	lsn int64
}

func (d *deferredCommit) Wait(ctx context.Context) error {
	f := &d.s.flush
	if d.lsn > 0 {
		grace := time.NewTimer(flushGrace)
		defer grace.Stop()
	wait:
		for {
			ok, changed := f.covered(d.lsn)
			if ok {
				return nil
			}
			select {
			case <-changed:
			case <-grace.C:
				break wait
			case <-ctx.Done():
				return fmt.Errorf("wait for the commit to be durable: %w", ctx.Err())
			}
		}
	}
	return d.s.flushTo(ctx, d.lsn)
}

// flushTo forces flushes until lsn is durable (lsn -1: one flush that
// starts now). Concurrent callers share a flush in flight, and start their
// own when it did not reach them.
func (s *Store) flushTo(ctx context.Context, lsn int64) error {
	f := &s.flush
	for {
		f.mu.Lock()
		if lsn > 0 && f.flushed >= lsn {
			f.mu.Unlock()
			return nil
		}
		if running := f.barrier; running != nil {
			f.mu.Unlock()
			select {
			case <-running:
				continue
			case <-ctx.Done():
				return fmt.Errorf("wait for the commit to be durable: %w", ctx.Err())
			}
		}
		done := make(chan struct{})
		f.barrier = done
		f.mu.Unlock()
		f.forced.Add(1)
		flushed, err := s.flushBarrier(ctx)
		f.mu.Lock()
		f.barrier = nil
		f.mu.Unlock()
		close(done)
		if err != nil {
			return &domain.Error{Code: domain.CodeUnavailable, Message: "the store could not make a commit durable", Err: err}
		}
		f.advance(flushed)
		if lsn < 0 {
			return nil
		}
	}
}

// flushBarrier commits a transaction that writes one log record, durably,
// and returns the server's flush position after it.
func (s *Store) flushBarrier(ctx context.Context) (int64, error) {
	write := flushBarrierSQL
	if s.flush.fallback.Load() {
		write = flushBarrierFallbackSQL
	}
	lsn, err := s.flushWith(ctx, write)
	var pgErr *pgconn.PgError
	if write == flushBarrierSQL && errors.As(err, &pgErr) && (pgErr.Code == "42501" || pgErr.Code == "42883") {
		// Not allowed (or not there): the fallback from now on.
		s.flush.fallback.Store(true)
		return s.flushWith(ctx, flushBarrierFallbackSQL)
	}
	return lsn, err
}

// flushWith commits write in a transaction of its own, durably, and reads
// the flush position after it, in one round trip.
func (s *Store) flushWith(ctx context.Context, write string) (int64, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("begin")
	b.Queue(write)
	b.Queue("commit")
	b.Queue(flushLSNQuery)
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	for range 3 {
		if _, err := br.Exec(); err != nil {
			return 0, err
		}
	}
	var lsn int64
	if err := br.QueryRow().Scan(&lsn); err != nil {
		return 0, err
	}
	return lsn, nil
}
