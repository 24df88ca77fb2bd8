// Package replica is how a runtime shares its store with other runtimes:
// the Cluster interface both stores may implement (PostgreSQL does, for
// gateway replicas), the signals replicas tell each other, the errors of
// claims and leases, and Local, the cluster of a runtime alone on its store.
package replica

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Cluster is how a runtime shares its store with other runtimes: several
// gateway replicas on one PostgreSQL database. It is the only thing in
// the runtime that knows about replicas; Local (one process, the SQLite
// store) makes every method a no-op, so a single process behaves exactly
// as it did before replicas existed.
//
// Across replicas the store is the truth and the lanes are the database's:
//   - a run is claimed inside the transaction that moves it to running
//     (ClaimTx), which locks the run (FOR UPDATE SKIP LOCKED, so exactly
//     one replica gets it) and takes its session's lane (no other run of
//     the session running, none queued ahead), so a session's runs stay
//     strictly serial whichever replica runs them;
//   - the replica that claimed a run holds it under its lease (Renew)
//     until the run ends or is re-queued; when a replica's lease expires,
//     another takes its runs over (TakeOver) and applies the crash rule
//     to them (the run package's recover.go);
//   - what happens on one replica reaches the others as signals carrying
//     ids (Signal, Signals): waits wake, live clients get the events (the
//     rows are read from the store), and idle replicas look for work.
type Cluster interface {
	// Shared reports whether other runtimes may share the store.
	Shared() bool
	// Replica names this runtime among its peers.
	Replica() string
	// ClaimTx runs first in the transaction that moves run id from
	// queued to running. It locks the run, skipping it when another
	// transaction holds it (ErrRunTaken), takes the lane of its session
	// (a *LaneBusyError when the lane is held elsewhere or a run is queued
	// ahead) and holds the run under this replica's lease. It must
	// leave the transaction usable when it refuses.
	ClaimTx(tx domain.Tx, id string) error
	// ReleaseTx runs first in a transaction that changes a run that may be
	// running (its end, its re-queue, a cancel): it locks the run and lets
	// go of this replica's hold on it. ErrTakenOver means another replica took the
	// run over (this one's lease had expired): the change must not land.
	ReleaseTx(tx domain.Tx, id string) error
	// Next lists runs that could be claimed now (queued, first of their
	// session, the session's lane free), oldest first, at most limit;
	// sessionKey "" means any session.
	Next(ctx context.Context, sessionKey string, limit int) ([]domain.Run, error)
	// Renew extends this replica's lease. ErrLeaseLost means it had
	// expired and its runs were taken over; Renew starts a new lease.
	Renew(ctx context.Context) error
	// TakeOver ends the leases that expired and moves the runs held under
	// them to this replica; it returns the runs those replicas left running.
	TakeOver(ctx context.Context) ([]domain.Run, error)
	// LeaseInterval is how often the runtime renews its lease and looks
	// for expired ones and unclaimed work.
	LeaseInterval() time.Duration
	// Signal tells the other replicas that something happened here (it
	// is called after the commit that made it true).
	Signal(s Signal)
	// Signals delivers the other replicas' signals; nil for Local.
	Signals() <-chan Signal
	// Leave gives up this replica's lease at a clean stop, once its runs
	// have ended or been re-queued.
	Leave(ctx context.Context) error
	// RequestCancel writes down that run id is to be cancelled (a signal
	// is lost when the replica executing it is dead) and returns the
	// run's status read under the same row lock as a re-queue's.
	RequestCancel(ctx context.Context, id string) (domain.RunStatus, error)
	// CancelRequestedTx reports, in a transaction that locked run id,
	// whether its cancel was requested: a taken-over run is then ended
	// cancelled, not run again.
	CancelRequestedTx(tx domain.Tx, id string) (bool, error)
	// CancelsRequested returns which of runs ids have a cancel requested
	// (the owner's check when a cancel signal was missed).
	CancelsRequested(ctx context.Context, ids []string) ([]string, error)
}

// Signal is a fact one replica tells the others, by ids: the receivers
// read the rows from the store. Kind is an event kind (domain.Event…) or
// one of the Signal… kinds below.
type Signal struct {
	Kind       string `json:"k"`
	Replica    string `json:"r,omitempty"`
	SessionKey string `json:"s,omitempty"`
	RunID      string `json:"run,omitempty"`
	SessionID  string `json:"sid,omitempty"`
	Seq        int64  `json:"seq,omitempty"`
	Reason     string `json:"why,omitempty"`
	TS         int64  `json:"ts,omitempty"`
}

// Signal kinds that are not events.
const (
	// SignalQueued: run RunID of SessionKey is queued and no replica has
	// claimed it yet (a replica with a free slot may take it).
	SignalQueued = "run.queued"
	// SignalCancel: cancel run RunID where it executes.
	SignalCancel = "run.cancel"
)

// Errors of a Cluster.
var (
	// ErrRunTaken: the run is not queued, or another replica is claiming it.
	ErrRunTaken = errors.New("run taken by another replica")
	// ErrTakenOver: this replica no longer holds the run: another took it
	// over after this replica's lease expired.
	ErrTakenOver = errors.New("run taken over: another replica took the run over after this replica's lease expired")
	// ErrLeaseLost: this replica's lease had expired and was taken over.
	ErrLeaseLost = errors.New("replica lease expired and was taken over")
)

// LaneBusyError says a session's lane is not free: a run of the session
// is running (on some replica), or Ahead is queued before the run asked for.
type LaneBusyError struct {
	SessionKey string
	// Ahead is the run to go first ("" when the lane is held by a running run).
	Ahead string
}

func (e *LaneBusyError) Error() string {
	if e.Ahead != "" {
		return "lane of " + e.SessionKey + " busy: run " + e.Ahead + " is queued ahead"
	}
	return "lane of " + e.SessionKey + " busy: a run is running"
}

// Local is the Cluster of a runtime alone on its store (SQLite, one
// process): the runtime's own lanes are the only ones, so it claims,
// releases and signals nothing.
type Local struct{}

var _ Cluster = Local{}

// Shared reports false: nothing else uses the store.
func (Local) Shared() bool { return false }

// Replica is empty: there are no peers to tell apart.
func (Local) Replica() string { return "" }

// ClaimTx accepts every claim: the runtime's lanes already serialize.
func (Local) ClaimTx(domain.Tx, string) error { return nil }

// ReleaseTx has nothing to release.
func (Local) ReleaseTx(domain.Tx, string) error { return nil }

// Next lists nothing: the runtime scheduled every queued run at Start.
func (Local) Next(context.Context, string, int) ([]domain.Run, error) { return nil, nil }

// Renew has no lease to renew.
func (Local) Renew(context.Context) error { return nil }

// TakeOver returns nothing: Start applies the crash rule to every run left
// running, as only a stopped process can have left them.
func (Local) TakeOver(context.Context) ([]domain.Run, error) { return nil, nil }

// LeaseInterval is unused.
func (Local) LeaseInterval() time.Duration { return 0 }

// Signal tells no one.
func (Local) Signal(Signal) {}

// Signals is nil: no peer speaks.
func (Local) Signals() <-chan Signal { return nil }

// Leave has no lease to give up.
func (Local) Leave(context.Context) error { return nil }

// RequestCancel is never called: a lone runtime cancels what it runs.
func (Local) RequestCancel(context.Context, string) (domain.RunStatus, error) { return "", nil }

// CancelRequestedTx reports false: cancels are never written down.
func (Local) CancelRequestedTx(domain.Tx, string) (bool, error) { return false, nil }

// CancelsRequested returns nothing.
func (Local) CancelsRequested(context.Context, []string) ([]string, error) { return nil, nil }
