package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestMigrateToV9: a version 8 store (runs_parent over every run) is
// migrated to the partial runs_parent, which holds only runs with a
// parent, and listing the runs of a parent uses it and returns them all.
func TestMigrateToV9(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st := openAt(t, path)
	if err := st.Update(ctx, func(tx domain.Tx) error {
		for i := range 6 {
			r := domain.Run{ID: fmt.Sprintf("r%d", i), SessionKey: "agent:main:main", AgentID: "main",
				Kind: domain.RunKindChat, Status: domain.RunOK, CreatedAt: int64(i + 1)}
			if i%2 == 1 {
				r.ParentRunID = "r0"
			}
			if _, _, err := tx.CreateRun(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rawExec(t, path, `DROP INDEX runs_parent;
CREATE INDEX runs_parent ON runs (parent_run_id, created_at DESC);
PRAGMA user_version = 8;`)

	st = openAt(t, path)
	var version int
	if err := st.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("user_version = %d, %v; want %d", version, err, SchemaVersion)
	}
	var def string
	if err := st.rdb.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'runs_parent'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "WHERE parent_run_id != ''") {
		t.Errorf("runs_parent = %s, want a partial index", def)
	}
	var entries int
	if err := st.rdb.QueryRowContext(ctx, `SELECT count(*) FROM runs INDEXED BY runs_parent WHERE parent_run_id != ''`).Scan(&entries); err != nil || entries != 3 {
		t.Errorf("runs_parent entries = %d, %v; want 3", entries, err)
	}
	runs, err := st.ListRuns(ctx, domain.RunQuery{ParentRunID: "r0"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "r5,r3,r1" {
		t.Errorf("runs of r0 = %s, want r5,r3,r1", got)
	}
	// The plan of ListRuns' query by parent.
	rows, err := st.rdb.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT `+runColumns+` FROM runs
		WHERE parent_run_id = ? AND parent_run_id != '' ORDER BY created_at DESC, rowid DESC`, "r0")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if p := strings.Join(plan, "; "); !strings.Contains(p, "USING INDEX runs_parent") {
		t.Errorf("plan of ListRuns by parent = %q, want it to use runs_parent", p)
	}
}
