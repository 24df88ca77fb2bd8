package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// Cluster coordinates the gateway replicas that share this store (it is
// the PostgreSQL replica.Cluster): claims of runs (claims.go), replica
// leases, under which each replica holds its runs, and the take-over of a
// dead replica's runs (leases.go), signals
// between replicas over LISTEN/NOTIFY (notify.go) and leases on outbox
// items (outboxtake.go). Its tables are PostgreSQL's only (the SQLite
// store has one process and needs none); they are created, if missing,
// when a Cluster opens (clusterSchema).
type Cluster struct {
	s       *Store
	replica string
	host    string
	lease   time.Duration
	log     *slog.Logger

	// out queues signals for the sender; in delivers peers' signals.
	out chan replica.Signal
	in  chan replica.Signal

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closeOnce sync.Once

	// renewConn is the lease's own connection (leases.go).
	renewMu   sync.Mutex
	renewConn *pgx.Conn
}

var _ replica.Cluster = (*Cluster)(nil)

// ClusterOptions tune a Cluster.
type ClusterOptions struct {
	// Lease is how long a replica holds its runs after its last renewal
	// (default 15 s). It is renewed every Lease/3; a replica that stops
	// renewing loses its runs to another replica after Lease.
	Lease time.Duration
	// Replica names this replica (default: a random id).
	Replica string
	Logger  *slog.Logger
}

// DefaultLease is ClusterOptions.Lease's default.
const DefaultLease = 15 * time.Second

// signalBuffer bounds the signals queued to send or to handle; past it a
// signal is dropped (logged): signals are wake-ups, the store is the truth.
const signalBuffer = 8192

// NewCluster joins this process to the replicas of s: it creates the
// coordination tables when missing, takes a lease, and starts listening to
// and sending signals. Close stops it.
func NewCluster(ctx context.Context, s *Store, opts ClusterOptions) (*Cluster, error) {
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Lease < 300*time.Millisecond {
		return nil, fmt.Errorf("replicas: lease must be at least 300ms (got %s)", opts.Lease)
	}
	if opts.Replica == "" {
		opts.Replica = domain.NewID()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	c := &Cluster{
		s: s, replica: opts.Replica, host: host, lease: opts.Lease, log: opts.Logger,
		out: make(chan replica.Signal, signalBuffer),
		in:  make(chan replica.Signal, signalBuffer),
	}
	if err := c.ensureSchema(ctx); err != nil {
		return nil, err
	}
	if err := c.join(ctx); err != nil {
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	ready := make(chan error, 1)
	c.wg.Add(2)
	go func() { defer c.wg.Done(); c.listen(c.ctx, ready) }()
	go func() { defer c.wg.Done(); c.send(c.ctx) }()
	select {
	case err := <-ready:
		if err != nil {
			c.cancel()
			c.wg.Wait()
			return nil, fmt.Errorf("replicas: listen for signals: %w", err)
		}
	case <-ctx.Done():
		c.cancel()
		c.wg.Wait()
		return nil, ctx.Err()
	}
	return c, nil
}

// Close stops listening and sending (signals not sent yet are dropped).
// It does not give up the lease: Leave does, once the runs have ended.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		c.cancel()
		c.wg.Wait()
		c.renewMu.Lock()
		if c.renewConn != nil {
			c.renewConn.Close(context.Background())
			c.renewConn = nil
		}
		c.renewMu.Unlock()
	})
	return nil
}

// Shared reports true: other replicas may use the store.
func (c *Cluster) Shared() bool { return true }

// Replica is this replica's name (its lease row's key).
func (c *Cluster) Replica() string { return c.replica }

// LeaseInterval is how often the runtime renews the lease: a third of it,
// so two renewals may fail before the lease expires.
func (c *Cluster) LeaseInterval() time.Duration { return c.lease / 3 }

// lockObjCluster serializes the creation of the coordination tables by
// processes starting together (class lockClassStore, beside migrations).
const lockObjCluster = 2

// clusterSchema creates the coordination tables and indexes if missing.
//   - replica_leases: one row per live replica, expiring unless renewed.
//   - run_claims: which replica holds each running run under its lease
//     (the name is the schema's; it records leases of runs).
//   - run_cancels: runs whose cancel was requested and not yet honoured
//     (cancels.go).
//   - runs_one_running: at most one running run per session, whatever
//     happens (the lanes' invariant, enforced by the database).
//   - runs_queued: the queued runs of a session in insert order, for the
//     claim's "first of its session" check.
const clusterSchema = `
CREATE TABLE IF NOT EXISTS replica_leases (
	replica    TEXT COLLATE "C" PRIMARY KEY,
	host       TEXT NOT NULL,
	started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
	expires_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS run_claims (
	run_id     TEXT COLLATE "C" PRIMARY KEY,
	replica    TEXT COLLATE "C" NOT NULL,
	claimed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS run_claims_replica ON run_claims (replica);
CREATE TABLE IF NOT EXISTS run_cancels (
	run_id       TEXT COLLATE "C" PRIMARY KEY,
	replica      TEXT COLLATE "C" NOT NULL,
	requested_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS runs_one_running ON runs (session_key) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS runs_queued ON runs (session_key, insert_order) WHERE status = 'queued';
`

func (c *Cluster) ensureSchema(ctx context.Context) error {
	tx, err := c.s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("replicas: create tables: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockClassStore, lockObjCluster); err != nil {
		return fmt.Errorf("replicas: create tables: %w", err)
	}
	if _, err := tx.Exec(ctx, clusterSchema); err != nil {
		return fmt.Errorf("replicas: create tables (a session with two running runs cannot be shared by replicas): %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("replicas: create tables: %w", err)
	}
	return nil
}

// pgTx returns the PostgreSQL transaction behind a domain.Tx of this store.
func pgTx(t domain.Tx) (*tx, error) {
	pt, ok := t.(*tx)
	if !ok {
		return nil, errors.New("replicas: the transaction is not a PostgreSQL store's")
	}
	return pt, nil
}
