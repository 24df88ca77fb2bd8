package testkit

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/store/pgtest"
)

// Postgres creates a fresh, empty database on the process's PostgreSQL
// cluster (started on first use, stopped by Main) and returns its URL.
// Without the PostgreSQL binaries the test skips with the reason, except
// under CI=true, where it fails.
func Postgres(t testing.TB) string {
	t.Helper()
	return kit.pg.Database(t)
}

// PostgresCluster is the process's PostgreSQL cluster itself, for tests
// that stop or inspect the server.
func PostgresCluster(t testing.TB) *pgtest.Cluster {
	t.Helper()
	return kit.pg.Cluster(t)
}
