package app

import (
	"context"
	"log/slog"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
)

// openCluster joins the replicas of a PostgreSQL store (claims under a
// lease, signals over LISTEN/NOTIFY; docs/deployment.md). A SQLite store
// has one process: its cluster is replica.Local, which changes nothing. A
// read-only open runs nothing and joins nothing. The returned close
// function stops the cluster's listener and sender (after the engine).
func openCluster(ctx context.Context, cfg *config.Config, st domain.Store, log *slog.Logger, readOnly bool) (replica.Cluster, func(), error) {
	pg, ok := st.(*postgres.Store)
	if !ok || readOnly {
		return replica.Local{}, func() {}, nil
	}
	c, err := postgres.NewCluster(ctx, pg, postgres.ClusterOptions{Lease: cfg.Replicas.Lease(), Logger: log})
	if err != nil {
		return nil, nil, err
	}
	log.Info("joined the replicas of the store", "replica", c.Replica(), "lease", cfg.Replicas.Lease())
	return c, func() { c.Close() }, nil
}
