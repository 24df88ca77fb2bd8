package postgres

import (
	"context"
	"errors"
	"fmt"
)

// lockObjEngine is the session-level advisory lock (class "SwBd") held by
// the one process that runs an engine on the database.
const lockObjEngine = 2

// ErrEngineLocked is AcquireEngineLock's error when another process holds
// the lock.
var ErrEngineLocked = errors.New("another switchboard process runs an engine on this database")

// AcquireEngineLock takes the database's engine lock, held on a connection
// of its own until release is called (or the process dies: the server
// drops a dead session's locks). Until runs are claimed per replica, two
// engines on one database would each treat the other's running runs as
// left by a crash, so only one may run; see docs/deployment.md.
func (s *Store) AcquireEngineLock(ctx context.Context) (release func(), err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine lock: %w", err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, lockClassStore, lockObjEngine).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("engine lock: %w", err)
	}
	if !ok {
		conn.Release()
		return nil, fmt.Errorf("%s: %w", s.where, ErrEngineLocked)
	}
	return func() {
		// Unlock, or drop the connection (and with it the lock) if that fails.
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, $2)`, lockClassStore, lockObjEngine); err != nil {
			_ = conn.Conn().Close(context.Background())
		}
		conn.Release()
	}, nil
}
