package postgres

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/keylock"
)

// lockClassGate is the class of Gate's session-level advisory locks; the
// object is a hash of the gate's name. A class of its own keeps the hashes
// clear of the store's fixed objects (migrations, coordination tables).
const lockClassGate = 0x53774774 // "SwGt"

// gateQueryTimeout bounds one statement on the gate connection. It is not
// the caller's ctx: pgx answers a cancelled ctx by closing the connection,
// which would drop every gate the process holds on it.
const gateQueryTimeout = 10 * time.Second

// gateBackoff bounds the wait between two tries for a gate another
// replica holds.
const (
	gateBackoffMin = time.Millisecond
	gateBackoffMax = 25 * time.Millisecond
)

// gates are the store's named cross-replica locks. Each process keeps one
// connection of its own (outside the pool) on which it holds every gate it
// holds: session-level advisory locks in class lockClassGate, taken with
// pg_try_advisory_lock, so no statement ever waits on the server and the
// one connection serves every gate of the process. A gate taken on a
// pooled connection instead would hold that connection until release, and
// gated callers need pooled connections for the work they gate: enough of
// them at once would exhaust the pool and wait for each other.
//
// Within the process, holders of one name queue on names (so only the
// first polls the server); advisory locks are reentrant per connection, so
// two names whose hashes collide are told apart by names too, and exclude
// each other only between processes.
type gates struct {
	names keylock.Map
	// conn is the gate connection; its token (a one-slot channel) orders
	// its statements and its replacement. epoch counts replacements: a
	// release unlocks only on the connection its lock was taken on.
	token chan struct{}
	conn  *pgx.Conn
	epoch uint64
}

// gateObj is the advisory lock object of a gate's name.
func gateObj(name string) int32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int32(h.Sum32())
}

// Gate holds the named lock among every process on this database until
// release. Waiting for a name another replica holds polls the server
// (pg_try_advisory_lock, with a short backoff) until ctx ends; a gate
// nobody else holds costs one round trip to take and one to release. A
// gate lives as long as the gate connection: the server drops the locks
// of a lost connection, so a connection failure ends the exclusion of the
// gates held on it (the next gate reconnects).
func (s *Store) Gate(ctx context.Context, name string) (release func(), err error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("gate: %w", domain.ErrClosed)
	}
	unlockName, err := s.gates.names.LockContext(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("gate %q: %w", name, err)
	}
	obj := gateObj(name)
	wait := gateBackoffMin
	for {
		ok, epoch, err := s.gateTry(ctx, obj)
		if err != nil {
			unlockName()
			return nil, fmt.Errorf("gate %q: %w", name, err)
		}
		if ok {
			return func() {
				s.gateUnlock(obj, epoch)
				unlockName()
			}, nil
		}
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			unlockName()
			return nil, fmt.Errorf("gate %q: %w", name, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, gateBackoffMax)
	}
}

// gateTry tries once for obj's lock on the gate connection, connecting it
// first when there is none, and reports the connection's epoch.
func (s *Store) gateTry(ctx context.Context, obj int32) (ok bool, epoch uint64, err error) {
	g := &s.gates
	select {
	case g.token <- struct{}{}:
	case <-ctx.Done():
		return false, 0, ctx.Err()
	}
	defer func() { <-g.token }()
	if s.closed.Load() {
		return false, 0, domain.ErrClosed
	}
	qctx, cancel := context.WithTimeout(context.Background(), gateQueryTimeout)
	defer cancel()
	if g.conn == nil {
		conn, err := pgx.ConnectConfig(qctx, s.pool.Config().ConnConfig.Copy())
		if err != nil {
			return false, 0, err
		}
		g.conn = conn
		g.epoch++
	}
	if err := g.conn.QueryRow(qctx, `SELECT pg_try_advisory_lock($1, $2)`, lockClassGate, obj).Scan(&ok); err != nil {
		g.drop()
		return false, 0, err
	}
	return ok, g.epoch, nil
}

// gateUnlock releases obj's lock taken on the connection of epoch. When
// that connection is gone, so is the lock.
func (s *Store) gateUnlock(obj int32, epoch uint64) {
	g := &s.gates
	g.token <- struct{}{}
	defer func() { <-g.token }()
	if g.conn == nil || g.epoch != epoch {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), gateQueryTimeout)
	defer cancel()
	var released bool
	if err := g.conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1, $2)`, lockClassGate, obj).Scan(&released); err != nil {
		// The connection is in doubt: drop it, and the server drops its
		// locks with it.
		g.drop()
	}
}

// drop closes the gate connection; the caller holds the token.
func (g *gates) drop() {
	if g.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = g.conn.Close(ctx)
		g.conn = nil
	}
}

// closeGates closes the gate connection (Close), waiting for a statement
// in flight.
func (s *Store) closeGates() {
	s.gates.token <- struct{}{}
	s.gates.drop()
	<-s.gates.token
}
