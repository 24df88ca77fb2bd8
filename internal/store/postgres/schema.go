package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SchemaVersion is the schema version this package writes and understands.
// It counts PostgreSQL migrations, which are numbered on their own: the
// SQLite store's history (its v2 reshaped a v1 that PostgreSQL never had)
// is not replayed here.
const SchemaVersion = 5

// applicationName marks a database as a switchboard store in
// schema_version, so a database of another application is refused.
const applicationName = "switchboard"

// Advisory locks live in the two-key space: class "SwBd" object 1
// serializes migrations of processes opening one database at once; class
// "SwKy" with a hash of a session key serializes writes to that key's
// transcript and row (tx.go).
const (
	lockClassStore = 0x53774264 // "SwBd"
	lockObjMigrate = 1
	lockClassKey   = 0x53774b79 // "SwKy": per-session-key write locks
)

// migrations[i] moves the schema from version i to i+1. Never edit a
// released migration: add the next one.
var migrations = []string{
	schemaV1,
	schemaV2,
	schemaV3,
	schemaV4,
	// Approvals of agent-to-agent calls (approvals.go).
	schemaApprovals,
}

// schemaV3 is the SQLite store's v5 (budgets, usage rollups, the usage
// ledger; see that store's schema.go), with accounts of existing sessions
// from their runs' usage and the tree rollups summed once.
const schemaV3 = `
CREATE TABLE session_accounts (
	session_key    TEXT COLLATE "C" PRIMARY KEY,
	spawned_by     TEXT COLLATE "C" NOT NULL,
	self_input     BIGINT NOT NULL,
	self_output    BIGINT NOT NULL,
	self_cost      DOUBLE PRECISION NOT NULL,
	self_runs      BIGINT NOT NULL,
	tree_input     BIGINT NOT NULL,
	tree_output    BIGINT NOT NULL,
	tree_cost      DOUBLE PRECISION NOT NULL,
	tree_runs      BIGINT NOT NULL,
	budget_tokens  BIGINT NOT NULL,
	budget_cost    DOUBLE PRECISION NOT NULL,
	budget_seconds BIGINT NOT NULL,
	started_at     BIGINT NOT NULL,
	deadline_at    BIGINT NOT NULL
);
CREATE TABLE usage_ledger (
	id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at            BIGINT NOT NULL,
	session_key   TEXT COLLATE "C" NOT NULL,
	agent_id      TEXT NOT NULL,
	model         TEXT NOT NULL,
	run_id        TEXT NOT NULL,
	input_tokens  BIGINT NOT NULL,
	output_tokens BIGINT NOT NULL,
	cost_usd      DOUBLE PRECISION NOT NULL
);
INSERT INTO session_accounts
SELECT s.key, s.spawned_by,
	coalesce((SELECT sum((r.usage::jsonb->>'input')::bigint) FROM runs r WHERE r.session_key = s.key), 0),
	coalesce((SELECT sum((r.usage::jsonb->>'output')::bigint) FROM runs r WHERE r.session_key = s.key), 0),
	coalesce((SELECT sum(coalesce((r.usage::jsonb->'cost'->>'total')::double precision, 0)) FROM runs r WHERE r.session_key = s.key), 0),
	(SELECT count(*) FROM runs r WHERE r.session_key = s.key AND r.ended_at > 0 AND r.started_at > 0),
	0, 0, 0, 0, 0, 0, 0, 0, 0
FROM sessions s;
WITH RECURSIVE up(leaf, anc, depth) AS (
	SELECT session_key, session_key, 0 FROM session_accounts
	UNION ALL
	SELECT up.leaf, a.spawned_by, up.depth + 1 FROM up JOIN session_accounts a ON a.session_key = up.anc
	WHERE a.spawned_by <> '' AND up.depth < 64
), sums AS (
	SELECT up.anc AS key, sum(l.self_input) AS i, sum(l.self_output) AS o, sum(l.self_cost) AS c, sum(l.self_runs) AS r
	FROM up JOIN session_accounts l ON l.session_key = up.leaf GROUP BY up.anc
)
UPDATE session_accounts SET tree_input = sums.i, tree_output = sums.o, tree_cost = sums.c, tree_runs = sums.r
FROM sums WHERE sums.key = session_accounts.session_key;
`

// schemaV1 is the SQLite store's schema at its version 3, in PostgreSQL's
// dialect: the same tables, columns and indexes, with these differences.
//   - Keys and ids are COLLATE "C" so list order and cursors compare
//     bytes, as Go and SQLite do, whatever the database's locale.
//   - runs has insert_order (SQLite's rowid) to break created_at ties.
//   - outbox.id is an identity column (SQLite's AUTOINCREMENT); an import
//     may set it, and then moves the sequence past it.
//   - messages' (session_key, seq) is the primary key.
const schemaV1 = `
CREATE TABLE sessions (
	key         TEXT COLLATE "C" PRIMARY KEY,
	agent_id    TEXT COLLATE "C" NOT NULL,
	session_id  TEXT COLLATE "C" NOT NULL,
	kind        TEXT NOT NULL,
	spawned_by  TEXT COLLATE "C" NOT NULL,
	label       TEXT NOT NULL,
	updated_at  BIGINT NOT NULL,
	archived_at BIGINT NOT NULL,
	-- lower-cased key, label and display name joined by U+001F, for Search.
	search_text TEXT NOT NULL,
	-- the whole domain.Session, encoded as the SQLite store does.
	data        BYTEA NOT NULL
);
CREATE INDEX sessions_updated ON sessions (updated_at DESC, key);
CREATE INDEX sessions_agent_updated ON sessions (agent_id, updated_at DESC, key);
CREATE INDEX sessions_session_id ON sessions (session_id);
CREATE INDEX sessions_spawned_by ON sessions (spawned_by);
CREATE INDEX sessions_label ON sessions (label);

CREATE TABLE messages (
	session_key TEXT COLLATE "C" NOT NULL,
	seq         BIGINT NOT NULL,
	session_id  TEXT COLLATE "C" NOT NULL,
	id          TEXT COLLATE "C" NOT NULL,
	parent_id   TEXT COLLATE "C" NOT NULL,
	role        TEXT NOT NULL,
	run_id      TEXT NOT NULL,
	timestamp   BIGINT NOT NULL,
	-- the message as OpenClaw's raw transcript JSON.
	body        TEXT NOT NULL,
	PRIMARY KEY (session_key, seq)
);

-- Entry ids of generations that did not come from this scheme (copied from
-- a store whose ids were random); see messages.go.
CREATE TABLE legacy_entry_ids (
	session_key TEXT COLLATE "C" NOT NULL,
	session_id  TEXT COLLATE "C" NOT NULL,
	id          TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (session_key, session_id, id)
);

CREATE TABLE runs (
	id              TEXT COLLATE "C" PRIMARY KEY,
	session_key     TEXT COLLATE "C" NOT NULL,
	session_id      TEXT NOT NULL,
	agent_id        TEXT NOT NULL,
	kind            TEXT NOT NULL,
	lane            TEXT NOT NULL,
	parent_run_id   TEXT COLLATE "C" NOT NULL,
	requester_key   TEXT NOT NULL,
	-- NULL when the run has none, so UNIQUE only binds real keys.
	idempotency_key TEXT COLLATE "C" UNIQUE,
	status          TEXT NOT NULL,
	message         TEXT NOT NULL,
	reply           TEXT NOT NULL,
	error           TEXT NOT NULL,
	usage           TEXT NOT NULL,
	spec            TEXT,
	timeout_ms      BIGINT NOT NULL,
	created_at      BIGINT NOT NULL,
	started_at      BIGINT NOT NULL,
	ended_at        BIGINT NOT NULL,
	updated_at      BIGINT NOT NULL,
	attempt         INTEGER NOT NULL DEFAULT 1,
	insert_order    BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX runs_session ON runs (session_key, created_at DESC, insert_order DESC);
CREATE INDEX runs_parent ON runs (parent_run_id, created_at DESC, insert_order DESC);
CREATE INDEX runs_status ON runs (status, created_at DESC, insert_order DESC);
CREATE INDEX runs_created ON runs (created_at DESC, insert_order DESC);

CREATE TABLE outbox (
	id              BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	idempotency_key TEXT COLLATE "C" NOT NULL UNIQUE,
	kind            TEXT NOT NULL,
	session_key     TEXT COLLATE "C" NOT NULL,
	run_id          TEXT COLLATE "C" NOT NULL,
	channel         TEXT NOT NULL,
	to_addr         TEXT NOT NULL,
	payload         TEXT,
	status          TEXT NOT NULL,
	attempts        INTEGER NOT NULL,
	last_error      TEXT NOT NULL,
	next_attempt_at BIGINT NOT NULL,
	created_at      BIGINT NOT NULL,
	delivered_at    BIGINT NOT NULL
);
CREATE INDEX outbox_due ON outbox (status, next_attempt_at);
CREATE INDEX outbox_session ON outbox (session_key);
CREATE INDEX outbox_run ON outbox (run_id);
`

// checkSchema reads the schema version on conn and refuses a database that
// is newer than this binary or holds tables of another application. It
// only reads.
func checkSchema(ctx context.Context, q pgx.Tx, where string) (int, error) {
	var hasMeta bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables
		WHERE schemaname = current_schema() AND tablename = 'schema_version')`).Scan(&hasMeta)
	if err != nil {
		return 0, fmt.Errorf("store %s: inspect schema: %w", where, err)
	}
	if !hasMeta {
		var tables int
		err := q.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`).Scan(&tables)
		if err != nil {
			return 0, fmt.Errorf("store %s: inspect schema: %w", where, err)
		}
		if tables > 0 {
			return 0, fmt.Errorf("store %s: the database's schema holds %d tables but no switchboard schema; refusing to use it (give switchboard an empty database or schema)", where, tables)
		}
		return 0, nil
	}
	var version int
	var app string
	err = q.QueryRow(ctx, `SELECT version, application FROM schema_version`).Scan(&version, &app)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("store %s: schema_version is empty; the store is damaged", where)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42703" { // undefined_column
		return 0, fmt.Errorf("store %s: schema_version belongs to another application (%s); not a switchboard store", where, pgErr.Message)
	}
	if err != nil {
		return 0, fmt.Errorf("store %s: read schema version: %w", where, err)
	}
	if app != applicationName {
		return 0, fmt.Errorf("store %s: database of another application (%q), not a switchboard store", where, app)
	}
	if version > SchemaVersion {
		return 0, fmt.Errorf("store %s: store schema version %d is newer than this switchboard supports (%d); upgrade switchboard", where, version, SchemaVersion)
	}
	return version, nil
}

// migrate brings the schema up to SchemaVersion in one transaction, under
// an advisory lock so processes starting together migrate once.
func migrate(ctx context.Context, conn *pgx.Conn, where string) (err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store %s: begin migration: %w", where, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockClassStore, lockObjMigrate); err != nil {
		return fmt.Errorf("store %s: lock for migration: %w", where, err)
	}
	version, err := checkSchema(ctx, tx, where)
	if err != nil {
		return err
	}
	if version == SchemaVersion {
		return tx.Commit(ctx)
	}
	if version == 0 {
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_version (
			application TEXT NOT NULL,
			version     INTEGER NOT NULL,
			one_row     BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one_row))`); err != nil {
			return fmt.Errorf("store %s: create schema_version: %w", where, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_version (application, version) VALUES ($1, 0)`, applicationName); err != nil {
			return fmt.Errorf("store %s: create schema_version: %w", where, err)
		}
	}
	for v := version; v < SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("store %s: migrate schema to version %d: %w", where, v+1, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE schema_version SET version = $1`, SchemaVersion); err != nil {
		return fmt.Errorf("store %s: set schema version: %w", where, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store %s: commit migration: %w", where, err)
	}
	return nil
}
