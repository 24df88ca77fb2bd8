// Package postgres is a domain.Store on PostgreSQL (pgx/v5, pgxpool), for
// several gateway processes sharing one database. It passes the same
// conformance suite (store/storetest) as the SQLite store and keeps the
// same schema where the dialects allow (schema.go).
//
// Writes: each Update is one database transaction at READ COMMITTED. What
// the SQLite store gets from its single writer, this one gets from locks
// that hold across processes: a transaction that appends to a key's
// transcript or reads its session row for writing first takes the key's
// advisory transaction lock, so Seq assignment and read-modify-writes of
// one key are serial while other keys proceed; runs and outbox rows use
// ON CONFLICT on their unique keys, so idempotency holds across processes.
// A transaction that loses a deadlock or a serialization check is retried
// with a fresh fn call, so fn must not depend on running only once beyond
// its writes through Tx (the engine's fns only assign results).
//
// Durability: a commit returns after PostgreSQL flushed it (the server's
// synchronous_commit, on by default, decides; do not turn it off for a
// store whose acknowledged writes must survive a crash). UpdateDeferred
// commits without the wait and says later when the commit is durable
// (durable.go).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/switchboard-go/switchboard/internal/domain"
	masking "github.com/switchboard-go/switchboard/internal/redact"
)

var _ domain.Store = (*Store)(nil)

// Options tune a Store. The zero value is a good default.
type Options struct {
	// MaxConns caps the connection pool (default 16: enough for the
	// engine's concurrent runs to commit side by side, few enough that a
	// handful of replicas stay well under the server's max_connections).
	MaxConns int
	// MaxRetries bounds how often Update re-runs fn after a deadlock or
	// serialization failure (default 10).
	MaxRetries int
}

// Store is a domain.Store on one PostgreSQL database. It is safe for
// concurrent use, by several processes too.
type Store struct {
	pool       *pgxpool.Pool
	where      string // the URL without its password, for errors
	maxRetries int
	// redactor masks the text the search index holds (search.go); it is
	// immutable, so concurrent transactions share it.
	redactor masking.Redactor

	closeOnce sync.Once
	closed    atomic.Bool
	// mu orders Update's start against Close, so Close waits for the
	// transactions in flight instead of pulling the pool from under them.
	mu sync.RWMutex

	// hasLegacyIDs: legacy_entry_ids had rows when the store was opened
	// (only an import adds them, into an empty database, before any
	// gateway starts), see messages.go.
	hasLegacyIDs atomic.Bool

	// flush follows the server's flush position for deferred commits
	// (durable.go).
	flush flushTracker

	// gates are Gate's cross-replica named locks (gate.go).
	gates gates
}

// Open connects to the database at rawURL (postgres://…), runs pending
// schema migrations and returns the store. A database that holds tables of
// another application, or a newer switchboard schema, is refused with an
// error that names it.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	where := redact(rawURL)
	switch {
	case rawURL == "":
		return nil, errors.New("open store: store.url is required for the postgres driver")
	case opts.MaxConns < 0:
		return nil, fmt.Errorf("open store %s: Options.MaxConns must be >= 0 (got %d)", where, opts.MaxConns)
	case opts.MaxRetries < 0:
		return nil, fmt.Errorf("open store %s: Options.MaxRetries must be >= 0 (got %d)", where, opts.MaxRetries)
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 10
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", where, err)
	}
	if opts.MaxConns == 0 {
		opts.MaxConns = 16
	}
	cfg.MaxConns = int32(opts.MaxConns)
	// Idle connections are closed after a while; the pool keeps one warm.
	cfg.MinConns = 1
	cfg.MaxConnIdleTime = 5 * time.Minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", where, err)
	}
	s := &Store{pool: pool, where: where, maxRetries: opts.MaxRetries, redactor: masking.New(),
		gates: gates{token: make(chan struct{}, 1)}}
	if err := s.open(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) open(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.where, err)
	}
	defer conn.Release()
	if err := migrate(ctx, conn.Conn(), s.where); err != nil {
		return err
	}
	var legacy bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM legacy_entry_ids)`).Scan(&legacy); err != nil {
		return fmt.Errorf("open store %s: %w", s.where, err)
	}
	s.hasLegacyIDs.Store(legacy)
	var syncCommit string
	if err := conn.QueryRow(ctx, `SELECT current_setting('synchronous_commit')`).Scan(&syncCommit); err != nil {
		return fmt.Errorf("open store %s: %w", s.where, err)
	}
	s.flush.init(syncCommit != "off")
	if err := s.backfillSearch(ctx); err != nil {
		return fmt.Errorf("open store %s: %w", s.where, err)
	}
	return nil
}

// redact returns rawURL without its password.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return "(postgres url)"
	}
	return u.Redacted()
}

// Where names the database for messages: its URL without the password.
func (s *Store) Where() string { return s.where }

// Pool is the connection pool, for code that shares the store's database
// (the replicas' claims and notifications).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close waits for Updates in flight and closes the pool. Later calls fail
// with domain.ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed.Store(true)
		s.mu.Unlock()
		s.closeGates()
		s.pool.Close()
	})
	return nil
}

// readErr wraps a read error, reporting use after Close as ErrClosed.
func (s *Store) readErr(op string, err error) error {
	if s.closed.Load() {
		return fmt.Errorf("%s: %w", op, domain.ErrClosed)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Update runs fn in one transaction and commits it. A deadlock or
// serialization failure re-runs fn in a new transaction (up to
// Options.MaxRetries times).
func (s *Store) Update(ctx context.Context, fn func(domain.Tx) error) error {
	_, err := s.update(ctx, fn, false)
	return err
}

// update is Update, or with deferred UpdateDeferred's commit; it returns
// the log position the deferred commit must see flushed (durable.go): 0
// when fn wrote nothing, -1 when it could not be read.
func (s *Store) update(ctx context.Context, fn func(domain.Tx) error, deferred bool) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("update: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed.Load() {
		return 0, fmt.Errorf("update: %w", domain.ErrClosed)
	}
	for attempt := 0; ; attempt++ {
		lsn, err := s.updateOnce(ctx, fn, deferred)
		if err == nil || !retryable(err) || attempt >= s.maxRetries {
			return lsn, err
		}
	}
}

func (s *Store) updateOnce(ctx context.Context, fn func(domain.Tx) error, deferred bool) (lsn int64, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("update: %w", err)
	}
	// Release closes a connection left inside a transaction (a failed
	// rollback) instead of pooling it.
	defer conn.Release()
	t := &tx{s: s, ctx: ctx, conn: conn}
	// BEGIN is not sent on its own: it goes out with the fn's first
	// statement (tx.go), saving a round trip per Update.
	t.defer_("begin")
	defer func() {
		t.finish()
		if err != nil && t.begun {
			// The fn's or the commit's error matters more than a failed
			// rollback (whose connection Release then discards).
			_, _ = conn.Exec(context.WithoutCancel(ctx), "rollback")
		}
	}()
	if err := fn(t); err != nil {
		return 0, err
	}
	if err := t.flushAudit(); err != nil {
		return 0, err
	}
	t.finish()
	// A deferred commit reads its log position after the COMMIT; a
	// durable one, while deferred commits wait, the flush position.
	trail := ""
	switch {
	case deferred:
		trail = insertLSNQuery
	case s.flush.waiting():
		trail = flushLSNQuery
	}
	lsn, err = t.commit(trail, deferred)
	if err != nil {
		return 0, fmt.Errorf("update: commit: %w", err)
	}
	if !deferred && lsn > 0 {
		s.flush.advance(lsn)
		return 0, nil
	}
	return lsn, nil
}

// retryable reports a deadlock or serialization failure: the transaction
// was rolled back and may succeed when run again.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// isUniqueViolation reports a UNIQUE or PRIMARY KEY violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// queryRow runs a read on the pool.
func (s *Store) queryRow(ctx context.Context, query string, args ...any) pgx.Row {
	return s.pool.QueryRow(ctx, query, args...)
}

// DiskSize is the size of the database on the server's disk (tables,
// indexes, TOAST), for `switchboard bench store`.
func (s *Store) DiskSize(ctx context.Context) (int64, error) {
	var n int64
	if err := s.queryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		return 0, s.readErr("database size", err)
	}
	return n, nil
}
