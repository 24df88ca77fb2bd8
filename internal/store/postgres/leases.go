package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// Leases use the database's clock (now()), so replicas on machines whose
// clocks disagree still agree on when a lease expired.

// join takes this replica's lease.
func (c *Cluster) join(ctx context.Context) error {
	_, err := c.s.pool.Exec(ctx, `INSERT INTO replica_leases (replica, host, expires_at)
		VALUES ($1, $2, now() + $3::interval)
		ON CONFLICT (replica) DO UPDATE SET expires_at = EXCLUDED.expires_at`, c.replica, c.host, c.lease.String())
	if err != nil {
		return fmt.Errorf("replicas: take a lease: %w", err)
	}
	return nil
}

// Renew extends this replica's lease by the lease duration. When the row
// is gone (the lease expired and another replica took its runs over) a
// new lease is taken and replica.ErrLeaseLost returned.
//
// The renewal has a connection of its own, apart from the pool: runs may
// hold every pooled connection, and a renewal must not queue behind them.
func (c *Cluster) Renew(ctx context.Context) error {
	c.renewMu.Lock()
	defer c.renewMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, c.lease/2)
	defer cancel()
	if c.renewConn == nil || c.renewConn.IsClosed() {
		conn, err := pgx.ConnectConfig(ctx, c.s.pool.Config().ConnConfig.Copy())
		if err != nil {
			return fmt.Errorf("replicas: renew lease: connect: %w", err)
		}
		c.renewConn = conn
	}
	tag, err := c.renewConn.Exec(ctx, `UPDATE replica_leases SET expires_at = now() + $2::interval WHERE replica = $1`,
		c.replica, c.lease.String())
	if err != nil {
		c.renewConn.Close(context.Background())
		c.renewConn = nil
		return fmt.Errorf("replicas: renew lease: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	if err := c.join(ctx); err != nil {
		return err
	}
	return replica.ErrLeaseLost
}

// TakeOver ends the leases that expired and moves to this replica the
// runs held under every lease that is gone (expired just now, or its
// replica left without giving its runs back). One transaction: the row
// locks make exactly one replica take each run. It returns the taken runs that are
// still running, for the crash rule.
func (c *Cluster) TakeOver(ctx context.Context) ([]domain.Run, error) {
	tx, err := c.s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("replicas: take over: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, `DELETE FROM replica_leases WHERE expires_at < now() AND replica <> $1 RETURNING replica, host`, c.replica)
	if err != nil {
		return nil, fmt.Errorf("replicas: take over: %w", err)
	}
	var dead []string
	for rows.Next() {
		var id, host string
		if err := rows.Scan(&id, &host); err != nil {
			rows.Close()
			return nil, fmt.Errorf("replicas: take over: %w", err)
		}
		dead = append(dead, id+"@"+host)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("replicas: take over: %w", err)
	}
	rows, err = tx.Query(ctx, `UPDATE run_claims SET replica = $1, claimed_at = now()
		WHERE replica <> $1 AND NOT EXISTS (SELECT 1 FROM replica_leases l WHERE l.replica = run_claims.replica)
		RETURNING run_id`, c.replica)
	if err != nil {
		return nil, fmt.Errorf("replicas: take over claims: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("replicas: take over claims: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("replicas: take over claims: %w", err)
	}
	// Runs left running held by no replica at all (copied from a store of one
	// process, say): nobody executes them.
	rows, err = tx.Query(ctx, `INSERT INTO run_claims (run_id, replica)
		SELECT r.id, $1 FROM runs r WHERE r.status = 'running'
		AND NOT EXISTS (SELECT 1 FROM run_claims c WHERE c.run_id = r.id)
		ON CONFLICT (run_id) DO NOTHING RETURNING run_id`, c.replica)
	if err != nil {
		return nil, fmt.Errorf("replicas: take over unclaimed runs: %w", err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("replicas: take over unclaimed runs: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("replicas: take over unclaimed runs: %w", err)
	}
	if err := sweepCancels(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("replicas: take over: %w", err)
	}
	if len(dead) > 0 {
		c.log.Warn("replica leases expired; taking over their runs", "replicas", dead, "runs", len(ids))
	}
	if len(ids) == 0 {
		return nil, nil
	}
	runs, err := queryAll(ctx, c.s, "taken-over runs", `SELECT `+runColumns+` FROM runs
		WHERE id = ANY($1::text[]) AND status = 'running' ORDER BY insert_order`, []any{ids}, scanRun)
	if err != nil {
		return nil, fmt.Errorf("replicas: take over: %w", err)
	}
	return runs, nil
}

// Leave gives up this replica's lease (a clean stop, its runs ended or
// re-queued). Claims it still held, if any, go to the next replica that
// looks.
func (c *Cluster) Leave(ctx context.Context) error {
	if _, err := c.s.pool.Exec(ctx, `DELETE FROM replica_leases WHERE replica = $1`, c.replica); err != nil {
		return fmt.Errorf("replicas: give up lease: %w", err)
	}
	return nil
}
