package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// errTxDone is returned by a Tx used after its fn returned.
var errTxDone = errors.New("postgres: Tx used after its Update fn returned")

// tx is the domain.Tx lent to one fn: one PostgreSQL transaction.
type tx struct {
	s    *Store
	ctx  context.Context
	tx   pgx.Tx
	done atomic.Bool
	// locked lists the session keys whose advisory lock this transaction
	// holds (they are held until it ends).
	locked map[string]bool
	// encBuf is scratch space for message bodies and session rows.
	encBuf []byte
}

var _ domain.Tx = (*tx)(nil)

func (t *tx) finish() { t.done.Store(true) }

func (t *tx) check() error {
	if t.done.Load() {
		return errTxDone
	}
	return nil
}

func (t *tx) exec(query string, args ...any) (pgconn.CommandTag, error) {
	return t.tx.Exec(t.ctx, query, args...)
}

func (t *tx) queryRow(query string, args ...any) pgx.Row {
	return t.tx.QueryRow(t.ctx, query, args...)
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
// statement).
func (t *tx) lockKey(key string) error {
	if t.locked[key] {
		return nil
	}
	if _, err := t.exec(`SELECT pg_advisory_xact_lock($1, $2)`, lockClassKey, keyLock(key)); err != nil {
		return fmt.Errorf("lock %q: %w", key, err)
	}
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
