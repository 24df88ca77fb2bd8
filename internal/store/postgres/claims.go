package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// ClaimTx claims queued run id for this replica inside t, the transaction
// that moves it to running:
//  1. the run's row is locked with FOR UPDATE SKIP LOCKED: when another
//     replica's transaction holds it (it is claiming it too), or the run
//     is not queued, replica.ErrRunTaken;
//  2. the session's key lock is taken (the store's per-key advisory lock,
//     which every write to the session takes too), so lane decisions on
//     one session are serial across replicas;
//  3. the lane must be free: no run of the session running, none queued
//     before it (insert order), else a *replica.LaneBusyError;
//  4. this replica's lease must be live (fencing: see below);
//  5. the run is held under this replica's lease: its row in run_claims
//     names this replica.
//
// Every refusal is a Go error with the transaction still usable.
func (c *Cluster) ClaimTx(dt domain.Tx, id string) error {
	t, err := pgTx(dt)
	if err != nil {
		return err
	}
	var key string
	var order int64
	err = t.queryRow(`SELECT session_key, insert_order FROM runs WHERE id = $1 AND status = 'queued' FOR UPDATE SKIP LOCKED`, id).Scan(&key, &order)
	if errors.Is(err, pgx.ErrNoRows) {
		return replica.ErrRunTaken
	}
	if err != nil {
		return fmt.Errorf("claim run %s: %w", id, err)
	}
	// Fencing: a claim is made only under this replica's live lease. The
	// row is locked FOR SHARE, so a take-over (which deletes the lease)
	// waits for this claim and moves it too. A replica that stalled past
	// its lease claims no run until its renewal takes a new lease.
	var live bool
	err = t.queryRow(`SELECT expires_at > now() FROM replica_leases WHERE replica = $1 FOR SHARE`, c.replica).Scan(&live)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !live) {
		return replica.ErrRunTaken
	}
	if err != nil {
		return fmt.Errorf("claim run %s: lease: %w", id, err)
	}
	if err := t.lockKey(key); err != nil {
		return fmt.Errorf("claim run %s: %w", id, err)
	}
	var other string
	var running bool
	err = t.queryRow(`SELECT id, status = 'running' FROM runs
		WHERE session_key = $1 AND id <> $2 AND (status = 'running' OR (status = 'queued' AND insert_order < $3))
		ORDER BY status = 'running' DESC, insert_order LIMIT 1`, key, id, order).Scan(&other, &running)
	switch {
	case err == nil && running:
		return &replica.LaneBusyError{SessionKey: key}
	case err == nil:
		return &replica.LaneBusyError{SessionKey: key, Ahead: other}
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("claim run %s: lane of %s: %w", id, key, err)
	}
	_, err = t.exec(`INSERT INTO run_claims (run_id, replica) VALUES ($1, $2)
		ON CONFLICT (run_id) DO UPDATE SET replica = EXCLUDED.replica, claimed_at = now()`, id, c.replica)
	if err != nil {
		return fmt.Errorf("claim run %s: %w", id, err)
	}
	return nil
}

// ReleaseTx lets go of this replica's hold on run id inside t (whose
// GetRun has locked the run's row). A run nobody holds (queued, or ended)
// is released trivially; a run another replica holds is
// replica.ErrTakenOver: this replica's lease expired and that one took the
// run over.
func (c *Cluster) ReleaseTx(dt domain.Tx, id string) error {
	t, err := pgTx(dt)
	if err != nil {
		return err
	}
	var holder string
	err = t.queryRow(`DELETE FROM run_claims WHERE run_id = $1 RETURNING replica`, id).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release run %s: %w", id, err)
	}
	if holder != c.replica {
		return replica.ErrTakenOver // (the DELETE rolls back with the transaction)
	}
	return nil
}

// Next lists queued runs whose lane is free now: no run of their session
// running and none queued before them, oldest first (insert order, which
// follows commit order for runs submitted one after another, whatever the
// replicas' clocks say). sessionKey "" looks at every session.
func (c *Cluster) Next(ctx context.Context, sessionKey string, limit int) ([]domain.Run, error) {
	if limit <= 0 {
		limit = 1
	}
	query := `SELECT ` + runColumns + ` FROM runs r WHERE r.status = 'queued'
		AND ($1 = '' OR r.session_key = $1)
		AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.session_key = r.session_key AND o.status = 'running')
		AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.session_key = r.session_key AND o.status = 'queued' AND o.insert_order < r.insert_order)
		ORDER BY r.insert_order LIMIT $2`
	return queryAll(ctx, c.s, "next runs", query, []any{sessionKey, limit}, scanRun)
}
