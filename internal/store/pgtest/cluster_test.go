package pgtest

import (
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

var pg Shared

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// Each Database is a new, empty database on the one shared cluster, which
// listens on loopback only and lives outside any 0700 test directory.
func TestDatabasesAreFreshAndSeparate(t *testing.T) {
	a, b := pg.Database(t), pg.Database(t)
	if a == b {
		t.Fatalf("two Database calls returned the same URL %s", a)
	}
	if !strings.Contains(a, "@127.0.0.1:") {
		t.Errorf("URL %s is not on loopback", a)
	}
	conn, err := pgx.Connect(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `CREATE TABLE x (id int)`); err != nil {
		t.Fatal(err)
	}
	var version string
	if err := conn.QueryRow(t.Context(), `SHOW server_version`).Scan(&version); err != nil || !strings.HasPrefix(version, "15") {
		t.Errorf("server_version %q (%v), want 15.x", version, err)
	}
	connB, err := pgx.Connect(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer connB.Close(t.Context())
	var n int
	if err := connB.QueryRow(t.Context(), `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("second database has %d tables (%v), want 0", n, err)
	}
	c := pg.Cluster(t)
	if st, err := os.Stat(c.dir); err != nil || st.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("cluster dir %s: %v", c.dir, err)
	}
}
