package postgres

import (
	"context"
	"errors"
	"fmt"
	"github.com/switchboard-go/switchboard/internal/audit"
	"hash/fnv"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// errTxDone is returned by a Tx used after its fn returned.
var errTxDone = errors.New("postgres: Tx used after its Update fn returned")

// tx is the domain.Tx lent to one fn: one PostgreSQL transaction on one
// pooled connection.
type tx struct {
	s    *Store
	ctx  context.Context
	conn *pgxpool.Conn
	done atomic.Bool
	// deferred are statements without results (BEGIN, lock calls) that go
	// out in one pipelined batch with the next statement; begun is true
	// once BEGIN has been sent.
	deferred []deferredStmt
	begun    bool
	// locked lists the session keys whose advisory lock this transaction
	// holds (they are held until it ends).
	locked map[string]bool
	// encBuf is scratch space for message bodies.
	encBuf []byte
	// audit holds the fn's audit entries, appended to the chain just
	// before the commit (audit.go).
	audit []audit.Entry
}

type deferredStmt struct {
	sql  string
	args []any
	// what names the call that queued it, for its error.
	what string
}

var _ domain.Tx = (*tx)(nil)

func (t *tx) finish() { t.done.Store(true) }

func (t *tx) check() error {
	if t.done.Load() {
		return errTxDone
	}
	return nil
}

// defer_ queues a statement whose result is only its success, to be sent
// with the next statement (or the commit).
func (t *tx) defer_(sql string, args ...any) {
	t.deferred = append(t.deferred, deferredStmt{sql: sql, args: args})
}

// deferWrite queues a write whose caller needs no result from the server
// (a replacing upsert, an insert of fresh rows): it goes out with the next
// statement, which sees it, or with the commit. Its failure is reported
// by that statement (or the commit), naming what.
func (t *tx) deferWrite(what, sql string, args ...any) {
	t.deferred = append(t.deferred, deferredStmt{sql: sql, args: args, what: what})
}

// batch sends the deferred statements and then query in one round trip.
// The caller reads query's result from br after skipping the deferred ones
// (skipDeferred) and closes br.
func (t *tx) batch(query string, args []any, trail ...string) (br pgx.BatchResults, sent []deferredStmt) {
	b := &pgx.Batch{}
	for _, d := range t.deferred {
		b.Queue(d.sql, d.args...)
	}
	b.Queue(query, args...)
	for _, q := range trail {
		b.Queue(q)
	}
	sent = t.deferred
	t.deferred = nil
	t.begun = true
	return t.conn.SendBatch(t.ctx, b), sent
}

// skipDeferred reads the results of the first n statements of a batch
// (deferred), returning the first failure.
func skipDeferred(br pgx.BatchResults, deferred []deferredStmt) error {
	for _, d := range deferred {
		if _, err := br.Exec(); err != nil {
			if d.what != "" {
				return fmt.Errorf("%s: %w", d.what, err)
			}
			return err
		}
	}
	return nil
}

func (t *tx) exec(query string, args ...any) (pgconn.CommandTag, error) {
	if len(t.deferred) == 0 {
		return t.conn.Exec(t.ctx, query, args...)
	}
	br, sent := t.batch(query, args)
	defer br.Close()
	if err := skipDeferred(br, sent); err != nil {
		return pgconn.CommandTag{}, err
	}
	return br.Exec()
}

func (t *tx) queryRow(query string, args ...any) pgx.Row {
	if len(t.deferred) == 0 {
		return t.conn.QueryRow(t.ctx, query, args...)
	}
	br, sent := t.batch(query, args)
	return &batchRow{br: br, sent: sent}
}

// batchRow is the row of the last statement of a batch; Scan closes the
// batch (every caller scans the row it asked for at once).
type batchRow struct {
	br   pgx.BatchResults
	sent []deferredStmt
}

func (r *batchRow) Scan(dest ...any) error {
	defer r.br.Close()
	if err := skipDeferred(r.br, r.sent); err != nil {
		return err
	}
	return r.br.QueryRow().Scan(dest...)
}

// commit sends what is deferred and COMMIT, in one round trip. With
// trail (a query of one bigint: a log position, durable.go), the query
// goes out after the COMMIT in the same round trip and its value is
// returned; async makes the commit asynchronous (durable.go). A trail query that fails does not undo the commit, and it is
// reported as lsn -1 with a nil error.
func (t *tx) commit(trail string, async bool) (lsn int64, err error) {
	if !t.begun && len(t.deferred) <= 1 {
		return 0, nil // fn sent nothing and queued only BEGIN (or nothing)
	}
	if async {
		// Read at COMMIT: it may be set just before.
		t.defer_(asyncCommitSQL)
	}
	var trails []string
	if trail != "" {
		trails = []string{trail}
	}
	br, sent := t.batch("commit", nil, trails...)
	defer br.Close()
	if err := skipDeferred(br, sent); err != nil {
		return 0, err
	}
	tag, err := br.Exec()
	if err != nil {
		return 0, err
	}
	if tag.String() == "ROLLBACK" {
		// A statement failed and fn went on: PostgreSQL rolled back.
		return 0, errors.New("the transaction was rolled back after a failed statement")
	}
	if trail == "" {
		return 0, nil
	}
	if err := br.QueryRow().Scan(&lsn); err != nil {
		return -1, nil
	}
	return lsn, nil
}

// keyLock returns the advisory lock object of a session key: a 32-bit
// hash. Two keys that share a hash only share a lock.
func keyLock(key string) int32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int32(h.Sum32())
}

// lockKey takes key's advisory transaction lock unless this transaction
// holds it already. Every statement after it sees the writes committed by
// the transaction that held it before (READ COMMITTED takes a snapshot per
// statement). The lock goes out with the next statement, so it costs no
// round trip of its own; a statement that follows it is always sent.
func (t *tx) lockKey(key string) error {
	if t.locked[key] {
		return nil
	}
	// Sent with the next statement, which runs after the lock is granted.
	t.defer_(`SELECT pg_advisory_xact_lock($1, $2)`, lockClassKey, keyLock(key))
	if t.locked == nil {
		t.locked = make(map[string]bool)
	}
	t.locked[key] = true
	return nil
}

// GetSession reads a session row, seeing the transaction's own writes. It
// takes the key's lock first: a fn that reads a row in Update is about to
// write it back, and two such fns on one key must not interleave.
func (t *tx) GetSession(key string) (domain.Session, error) {
	if err := t.check(); err != nil {
		return domain.Session{}, err
	}
	if err := t.lockKey(key); err != nil {
		return domain.Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	return getSession(t.queryRow(selectSessionByKey, key), key)
}

// GetRun reads a run, seeing the transaction's own writes, and locks its
// row until the transaction ends (a read here precedes a PutRun).
func (t *tx) GetRun(id string) (domain.Run, error) {
	if err := t.check(); err != nil {
		return domain.Run{}, err
	}
	return getRun(t.queryRow(selectRunByID+` FOR UPDATE`, id), "id", id)
}
