package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A cancel of a run executing on another replica is a signal, and a
// signal is lost when that replica is dead (its lease not yet expired).
// So the cancel is first written down (run_cancels), and the mark is
// honoured wherever the run is: by its owner when the signal arrives or
// when its lease loop looks (CancelsRequested), and by the replica that
// takes the run over (CancelRequestedTx in the re-queue's transaction),
// which ends it cancelled instead of running it again.

// RequestCancel records that run id is to be cancelled and returns its
// status, read under the run's row lock: the mark and a re-queue of the
// run (which checks the mark under the same lock) are serial, so either
// the re-queue sees the mark or the caller sees the run queued (and
// cancels it as a queued run). A run already ended gets no mark.
func (c *Cluster) RequestCancel(ctx context.Context, id string) (domain.RunStatus, error) {
	var status domain.RunStatus
	err := pgx.BeginFunc(ctx, c.s.pool, func(t pgx.Tx) error {
		var s string
		if err := t.QueryRow(ctx, `SELECT status FROM runs WHERE id = $1 FOR UPDATE`, id).Scan(&s); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return domain.ErrNotFound
			}
			return err
		}
		status = domain.RunStatus(s)
		if domain.RunTerminal(status) {
			return nil
		}
		_, err := t.Exec(ctx, `INSERT INTO run_cancels (run_id, replica) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING`, id, c.replica)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("replicas: request cancel of run %s: %w", id, err)
	}
	return status, nil
}

// CancelRequestedTx reports, inside t (which has locked run id's row),
// whether a cancel of the run was requested.
func (c *Cluster) CancelRequestedTx(dt domain.Tx, id string) (bool, error) {
	t, err := pgTx(dt)
	if err != nil {
		return false, err
	}
	var one int
	err = t.queryRow(`SELECT 1 FROM run_cancels WHERE run_id = $1`, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("replicas: cancel mark of run %s: %w", id, err)
	}
	return true, nil
}

// CancelsRequested returns which of runs ids have a cancel requested.
func (c *Cluster) CancelsRequested(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return queryAll(ctx, c.s, "cancel marks", `SELECT run_id FROM run_cancels WHERE run_id = ANY($1::text[])`,
		[]any{ids}, func(r pgx.Row) (string, error) {
			var id string
			err := r.Scan(&id)
			return id, err
		})
}

// sweepCancels drops the marks of runs that have ended (or are gone).
func sweepCancels(ctx context.Context, t pgx.Tx) error {
	_, err := t.Exec(ctx, `DELETE FROM run_cancels c WHERE NOT EXISTS
		(SELECT 1 FROM runs r WHERE r.id = c.run_id AND r.status IN ('queued', 'running'))`)
	if err != nil {
		return fmt.Errorf("replicas: sweep cancel marks: %w", err)
	}
	return nil
}
