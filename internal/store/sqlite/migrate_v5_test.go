package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestMigrateToV5Accounts: a store from before usage accounts gets one per
// session on upgrade, its own usage summed from its runs (runs that never
// started not counted) and its tree rollup summed over its descendants.
func TestMigrateToV5Accounts(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	session := func(key, parent string) string {
		return fmt.Sprintf(`INSERT INTO sessions (`+sessionColumnsV1+`, search_text) VALUES ('%s', 'main', 's-%s', 'other',
			'', '', '', '', NULL, NULL, '', '', '', '%s', 0, '', 0, '', '', '', '', '', '', 0, 0, 0, 0, 0, 0, 0, '', 0, 0, 0, 1, 0, 0, 'x')`, key, key, parent)
	}
	run := func(id, key, usage string, started int) string {
		return fmt.Sprintf(`INSERT INTO runs (id, session_key, session_id, agent_id, kind, lane, parent_run_id, requester_key,
			idempotency_key, status, message, reply, error, usage, spec, timeout_ms, created_at, started_at, ended_at, updated_at)
			VALUES ('%s', '%s', 's', 'main', 'chat', 'main', '', '', NULL, 'ok', '', '', '', '%s', NULL, 0, 1, %d, 3, 3)`, id, key, usage, started)
	}
	stmts := []string{
		schemaV1,
		session("agent:main:main", ""),
		session("agent:main:subagent:a", "agent:main:main"),
		session("agent:main:subagent:b", "agent:main:subagent:a"),
		session("agent:main:other", ""),
		run("r1", "agent:main:main", `{"input":100,"output":10,"cost":{"total":0.5}}`, 2),
		run("r2", "agent:main:main", `{"input":1,"output":1}`, 2),
		run("r3", "agent:main:subagent:a", `{"input":20,"output":2}`, 2),
		run("r4", "agent:main:subagent:b", `{"input":300,"output":30,"cost":{"total":0.25}}`, 2),
		run("r5", "agent:main:subagent:b", `{"input":0,"output":0}`, 0), // never started
		run("r6", "agent:main:other", `{"input":7,"output":7}`, 2),
		`PRAGMA user_version = 1`,
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%.80s: %v", s, err)
		}
	}
	db.Close()

	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer st.Close()
	accts, err := st.GetAccounts(ctx, []string{"agent:main:main", "agent:main:subagent:a", "agent:main:subagent:b", "agent:main:other"})
	if err != nil {
		t.Fatal(err)
	}
	u := func(in, out int64, cost float64, runs int64) domain.UsageTotals {
		return domain.UsageTotals{InputTokens: in, OutputTokens: out, CostUSD: cost, Runs: runs}
	}
	for key, want := range map[string]domain.SessionUsage{
		"agent:main:main":       {Self: u(101, 11, 0.5, 2), Tree: u(421, 43, 0.75, 4)},
		"agent:main:subagent:a": {Self: u(20, 2, 0, 1), Tree: u(320, 32, 0.25, 2)},
		"agent:main:subagent:b": {Self: u(300, 30, 0.25, 1), Tree: u(300, 30, 0.25, 1)},
		"agent:main:other":      {Self: u(7, 7, 0, 1), Tree: u(7, 7, 0, 1)},
	} {
		if got := accts[key].Usage; got != want {
			t.Errorf("%s: usage %+v, want %+v", key, got, want)
		}
	}
	if accts["agent:main:subagent:b"].SpawnedBy != "agent:main:subagent:a" {
		t.Errorf("spawnedBy = %q", accts["agent:main:subagent:b"].SpawnedBy)
	}
	// Charging after the upgrade walks the migrated chain.
	err = st.Update(ctx, func(tx domain.Tx) error {
		_, err := tx.AddUsage("agent:main:subagent:b", "agent:main:subagent:a", true, u(1, 1, 0, 0))
		if err != nil {
			return err
		}
		if _, err := tx.AddUsage("agent:main:subagent:a", "", false, u(1, 1, 0, 0)); err != nil {
			return err
		}
		_, err = tx.AddUsage("agent:main:main", "", false, u(1, 1, 0, 0))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	accts, _ = st.GetAccounts(ctx, []string{"agent:main:main"})
	if got := accts["agent:main:main"].Usage.Tree; got != u(422, 44, 0.75, 4) {
		t.Errorf("root tree after a charge = %+v", got)
	}
}
