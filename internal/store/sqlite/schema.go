package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// applicationID marks a SQLite file as a switchboard store ("SwBd"), so a
// foreign database is refused instead of being migrated into.
const applicationID = 0x53774264

// SchemaVersion is the schema version this package writes and understands.
const SchemaVersion = 12

// migrateTo moves the schema on conn, inside the migration transaction,
// from version to-1 to to. A new store runs every migration in turn.
// Never edit a released migration: add the next version instead.
func migrateTo(ctx context.Context, conn *sql.Conn, to int) error {
	switch to {
	case 1:
		_, err := conn.ExecContext(ctx, schemaV1)
		return err
	case 2:
		return migrateV2(ctx, conn)
	case 3:
		_, err := conn.ExecContext(ctx, schemaV3)
		return err
	case 4:
		return migrateV4(ctx, conn)
	case 5:
		_, err := conn.ExecContext(ctx, schemaV5)
		return err
	case 6:
		// Compressed message bodies (body.go): new rows may hold a BLOB in
		// messages.body. Nothing is rewritten, since old TEXT rows read
		// as they are; the version exists so that a binary from before it
		// refuses the store instead of failing on the first compressed row.
		return nil
	case 7:
		// The search index lags the messages (searchindex.go).
		_, err := conn.ExecContext(ctx, schemaV7)
		return err
	case 8:
		// Narrow message rows (narrow.go).
		_, err := conn.ExecContext(ctx, schemaV8())
		return err
	case 9:
		// runs_parent holds only the runs that have a parent.
		_, err := conn.ExecContext(ctx, schemaV9)
		return err
	case 10:
		// The index's scope column names each message's agent too
		// (scopeOf), so a search under agent visibility reads only its
		// agents' messages however many sessions they hold: rebuilt.
		return migrateV10(ctx, conn)
	case 11:
		// The audit log (audit.go).
		_, err := conn.ExecContext(ctx, schemaV11)
		return err
	case 12:
		// Approvals of agent-to-agent calls (approvals.go).
		return migrateApprovals(ctx, conn)
	}
	return fmt.Errorf("no migration to version %d", to)
}

// schemaV1 is the initial schema.
const schemaV1 = `
CREATE TABLE sessions (
	key                TEXT PRIMARY KEY,
	agent_id           TEXT NOT NULL,
	session_id         TEXT NOT NULL,
	kind               TEXT NOT NULL,
	channel            TEXT NOT NULL,
	chat_type          TEXT NOT NULL,
	label              TEXT NOT NULL,
	display_name       TEXT NOT NULL,
	origin             TEXT,
	delivery           TEXT,
	last_channel       TEXT NOT NULL,
	last_to            TEXT NOT NULL,
	last_account       TEXT NOT NULL,
	spawned_by         TEXT NOT NULL,
	spawn_depth        INTEGER NOT NULL,
	spawn_run_id       TEXT NOT NULL,
	sandboxed          INTEGER NOT NULL,
	model              TEXT NOT NULL,
	model_override     TEXT NOT NULL,
	model_provider     TEXT NOT NULL,
	thinking_level     TEXT NOT NULL,
	verbose_level      TEXT NOT NULL,
	send_policy        TEXT NOT NULL,
	system_sent        INTEGER NOT NULL,
	aborted_last_run   INTEGER NOT NULL,
	input_tokens       INTEGER NOT NULL,
	output_tokens      INTEGER NOT NULL,
	total_tokens       INTEGER NOT NULL,
	context_tokens     INTEGER NOT NULL,
	estimated_cost_usd REAL NOT NULL,
	status             TEXT NOT NULL,
	started_at         INTEGER NOT NULL,
	ended_at           INTEGER NOT NULL,
	created_at         INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL,
	archive_at         INTEGER NOT NULL,
	archived_at        INTEGER NOT NULL,
	-- lower-cased key, label and display name joined by U+001F, for Search.
	search_text        TEXT NOT NULL
);
-- List order is (updated_at DESC, key ASC); these indexes hold rows in
-- exactly that order so a LIMIT stops the scan early. No partial indexes:
-- to test whether one applies, SQLite looks at bound parameter values and
-- then re-prepares every statement on sessions at each new binding.
CREATE INDEX sessions_updated ON sessions (updated_at DESC, key);
CREATE INDEX sessions_agent_updated ON sessions (agent_id, updated_at DESC, key);
CREATE INDEX sessions_session_id ON sessions (session_id);
CREATE INDEX sessions_spawned_by ON sessions (spawned_by);
CREATE INDEX sessions_label ON sessions (label);

CREATE TABLE messages (
	session_key TEXT NOT NULL,
	seq         INTEGER NOT NULL,
	session_id  TEXT NOT NULL,
	id          TEXT NOT NULL,
	parent_id   TEXT NOT NULL,
	role        TEXT NOT NULL,
	run_id      TEXT NOT NULL,
	timestamp   INTEGER NOT NULL,
	-- the message as OpenClaw's raw transcript JSON.
	body        TEXT NOT NULL,
	UNIQUE (session_key, seq)
);
CREATE INDEX messages_generation ON messages (session_key, session_id, seq);
CREATE UNIQUE INDEX messages_entry_id ON messages (session_key, session_id, id);

CREATE TABLE runs (
	id              TEXT PRIMARY KEY,
	session_key     TEXT NOT NULL,
	session_id      TEXT NOT NULL,
	agent_id        TEXT NOT NULL,
	kind            TEXT NOT NULL,
	lane            TEXT NOT NULL,
	parent_run_id   TEXT NOT NULL,
	requester_key   TEXT NOT NULL,
	-- NULL when the run has none, so UNIQUE only binds real keys.
	idempotency_key TEXT UNIQUE,
	status          TEXT NOT NULL,
	message         TEXT NOT NULL,
	reply           TEXT NOT NULL,
	error           TEXT NOT NULL,
	usage           TEXT NOT NULL,
	spec            TEXT,
	timeout_ms      INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	started_at      INTEGER NOT NULL,
	ended_at        INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL
);
CREATE INDEX runs_session ON runs (session_key, created_at DESC);
CREATE INDEX runs_parent ON runs (parent_run_id, created_at DESC);
CREATE INDEX runs_status ON runs (status, created_at DESC);
CREATE INDEX runs_created ON runs (created_at DESC);

CREATE TABLE outbox (
	-- AUTOINCREMENT: an id is never reused, so a delivery log can cite it.
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	idempotency_key TEXT NOT NULL UNIQUE,
	kind            TEXT NOT NULL,
	session_key     TEXT NOT NULL,
	run_id          TEXT NOT NULL,
	channel         TEXT NOT NULL,
	to_addr         TEXT NOT NULL,
	payload         TEXT,
	status          TEXT NOT NULL,
	attempts        INTEGER NOT NULL,
	last_error      TEXT NOT NULL,
	next_attempt_at INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	delivered_at    INTEGER NOT NULL
);
CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
CREATE INDEX outbox_session ON outbox (session_key);
CREATE INDEX outbox_run ON outbox (run_id);
`

// schemaV3 records on each run how many times it was started (the crash
// rule re-queues a run once); rows written before it were first attempts.
const schemaV3 = `ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;`

// schemaV5 adds budgets, deadlines and usage rollups: one account row per
// session that has spent or been given a budget, and the usage ledger
// (one row per charged model step) that `switchboard usage` sums. Stores
// from before it get their accounts from their runs' recorded usage, the
// tree rollups summed once here, so upgrades keep their totals.
const schemaV5 = `
CREATE TABLE session_accounts (
	session_key    TEXT PRIMARY KEY,
	spawned_by     TEXT NOT NULL,
	self_input     INTEGER NOT NULL,
	self_output    INTEGER NOT NULL,
	self_cost      REAL NOT NULL,
	self_runs      INTEGER NOT NULL,
	tree_input     INTEGER NOT NULL,
	tree_output    INTEGER NOT NULL,
	tree_cost      REAL NOT NULL,
	tree_runs      INTEGER NOT NULL,
	budget_tokens  INTEGER NOT NULL,
	budget_cost    REAL NOT NULL,
	budget_seconds INTEGER NOT NULL,
	started_at     INTEGER NOT NULL,
	deadline_at    INTEGER NOT NULL
);
-- No AUTOINCREMENT and no index on at: each is another page a chat turn's
-- commit would write. Rows are never deleted, so rowids only grow, and
-- the usage report (not a hot path) scans.
CREATE TABLE usage_ledger (
	id            INTEGER PRIMARY KEY,
	at            INTEGER NOT NULL,
	session_key   TEXT NOT NULL,
	agent_id      TEXT NOT NULL,
	model         TEXT NOT NULL,
	run_id        TEXT NOT NULL,
	input_tokens  INTEGER NOT NULL,
	output_tokens INTEGER NOT NULL,
	cost_usd      REAL NOT NULL
);
INSERT INTO session_accounts
SELECT s.key, s.spawned_by,
	coalesce((SELECT sum(json_extract(r.usage, '$.input')) FROM runs r WHERE r.session_key = s.key), 0),
	coalesce((SELECT sum(json_extract(r.usage, '$.output')) FROM runs r WHERE r.session_key = s.key), 0),
	coalesce((SELECT sum(coalesce(json_extract(r.usage, '$.cost.total'), 0)) FROM runs r WHERE r.session_key = s.key), 0),
	(SELECT count(*) FROM runs r WHERE r.session_key = s.key AND r.ended_at > 0 AND r.started_at > 0),
	0, 0, 0, 0, 0, 0, 0, 0, 0
FROM sessions s;
WITH RECURSIVE up(leaf, anc, depth) AS (
	SELECT session_key, session_key, 0 FROM session_accounts
	UNION ALL
	SELECT up.leaf, a.spawned_by, up.depth + 1 FROM up JOIN session_accounts a ON a.session_key = up.anc
	WHERE a.spawned_by != '' AND up.depth < 64
)
UPDATE session_accounts SET
	tree_input  = (SELECT sum(l.self_input)  FROM up JOIN session_accounts l ON l.session_key = up.leaf WHERE up.anc = session_accounts.session_key),
	tree_output = (SELECT sum(l.self_output) FROM up JOIN session_accounts l ON l.session_key = up.leaf WHERE up.anc = session_accounts.session_key),
	tree_cost   = (SELECT sum(l.self_cost)   FROM up JOIN session_accounts l ON l.session_key = up.leaf WHERE up.anc = session_accounts.session_key),
	tree_runs   = (SELECT sum(l.self_runs)   FROM up JOIN session_accounts l ON l.session_key = up.leaf WHERE up.anc = session_accounts.session_key);
`

// checkSchema reads the schema version and refuses a database that is
// newer than this binary or belongs to another application. It only reads,
// so a refused file is left as it was.
func checkSchema(ctx context.Context, conn *sql.Conn, path string) (int, error) {
	var version, appID int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return 0, fmt.Errorf("read application id: %w", err)
	}
	if appID != 0 && appID != applicationID {
		return 0, fmt.Errorf("store %s: SQLite database of another application (application_id %#x), not a switchboard store", path, appID)
	}
	if version > SchemaVersion {
		return 0, fmt.Errorf("store %s: store schema version %d is newer than this switchboard supports (%d); upgrade switchboard", path, version, SchemaVersion)
	}
	if version == 0 {
		var tables int
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'").Scan(&tables); err != nil {
			return 0, fmt.Errorf("inspect schema: %w", err)
		}
		if tables > 0 {
			return 0, fmt.Errorf("store %s: SQLite database has %d tables but no switchboard schema; refusing to use it", path, tables)
		}
	}
	return version, nil
}

// migrate brings the database on conn up to SchemaVersion inside one
// transaction.
func migrate(ctx context.Context, conn *sql.Conn, path string) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			// The original error matters more than a failed rollback.
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	// Again under the write lock: another process may have migrated since.
	version, err := checkSchema(ctx, conn, path)
	if err != nil {
		return err
	}
	for v := version; v < SchemaVersion; v++ {
		if err := migrateTo(ctx, conn, v+1); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	if version < SchemaVersion {
		// PRAGMA arguments cannot be bound parameters; both values are constants.
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
			return fmt.Errorf("set schema version: %w", err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return fmt.Errorf("set application id: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}
