package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Schema version 2 is about speed at 100,000 sessions:
//
//   - sessions keeps as columns only what SQL filters, orders and indexes
//     on, and the whole row encoded in data (sessionrow.go), so a listing
//     reads one column per row instead of 37.
//   - messages loses two of its three indexes. (session_key, seq) stays:
//     history reads walk it backwards and meet the current generation's
//     rows first. Entry ids of new generations are unique by construction
//     (entryid.go), so they need no index; the ids already stored, which
//     are random, move to legacy_entry_ids, which keeps the generations
//     they belong to checked for collisions as before.
const schemaV2 = `
CREATE TABLE sessions_v2 (
	key         TEXT PRIMARY KEY,
	agent_id    TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	kind        TEXT NOT NULL,
	spawned_by  TEXT NOT NULL,
	label       TEXT NOT NULL,
	updated_at  INTEGER NOT NULL,
	archived_at INTEGER NOT NULL,
	-- lower-cased key, label and display name joined by U+001F, for Search.
	search_text TEXT NOT NULL,
	-- the whole domain.Session, encoded (sessionrow.go).
	data        BLOB NOT NULL
);
`

const schemaV2Finish = `
DROP TABLE sessions;
ALTER TABLE sessions_v2 RENAME TO sessions;
-- List order is (updated_at DESC, key ASC); these indexes hold rows in
-- exactly that order so a LIMIT stops the scan early. No partial indexes:
-- to test whether one applies, SQLite looks at bound parameter values and
-- then re-prepares every statement on sessions at each new binding.
CREATE INDEX sessions_updated ON sessions (updated_at DESC, key);
CREATE INDEX sessions_agent_updated ON sessions (agent_id, updated_at DESC, key);
CREATE INDEX sessions_session_id ON sessions (session_id);
CREATE INDEX sessions_spawned_by ON sessions (spawned_by);
CREATE INDEX sessions_label ON sessions (label);

CREATE TABLE legacy_entry_ids (
	session_key TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	id          TEXT NOT NULL,
	PRIMARY KEY (session_key, session_id, id)
) WITHOUT ROWID;
INSERT INTO legacy_entry_ids (session_key, session_id, id) SELECT session_key, session_id, id FROM messages;
DROP INDEX messages_generation;
DROP INDEX messages_entry_id;
`

// sessionColumnsV1 are the columns of a version 1 sessions row, in
// scanSessionV1's order.
const sessionColumnsV1 = `key, agent_id, session_id, kind, channel, chat_type, label, display_name,
	origin, delivery, last_channel, last_to, last_account,
	spawned_by, spawn_depth, spawn_run_id, sandboxed,
	model, model_override, model_provider, thinking_level, verbose_level, send_policy, system_sent, aborted_last_run,
	input_tokens, output_tokens, total_tokens, context_tokens, estimated_cost_usd,
	status, started_at, ended_at, created_at, updated_at, archive_at, archived_at`

func migrateV2(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, schemaV2); err != nil {
		return err
	}
	ins, err := conn.PrepareContext(ctx, `INSERT INTO sessions_v2 (`+sessionColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	rows, err := conn.QueryContext(ctx, `SELECT `+sessionColumnsV1+` FROM sessions`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		s, err := scanSessionV1(rows)
		if err != nil {
			return err
		}
		if _, err := ins.ExecContext(ctx, sessionArgs(&s)...); err != nil {
			return fmt.Errorf("session %q: %w", s.Key, err)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, schemaV2Finish)
	return err
}

// scanSessionV1 reads a version 1 sessions row.
func scanSessionV1(r rowScanner) (domain.Session, error) {
	var s domain.Session
	var origin, delivery sql.NullString
	err := r.Scan(
		&s.Key, &s.AgentID, &s.SessionID, &s.Kind, &s.Channel, &s.ChatType, &s.Label, &s.DisplayName,
		&origin, &delivery, &s.LastChannel, &s.LastTo, &s.LastAccount,
		&s.SpawnedBy, &s.SpawnDepth, &s.SpawnRunID, &s.Sandboxed,
		&s.Model, &s.ModelOverride, &s.ModelProvider, &s.ThinkingLevel, &s.VerboseLevel, &s.SendPolicy, &s.SystemSent, &s.AbortedLastRun,
		&s.InputTokens, &s.OutputTokens, &s.TotalTokens, &s.ContextTokens, &s.EstimatedCostUSD,
		&s.Status, &s.StartedAt, &s.EndedAt, &s.CreatedAt, &s.UpdatedAt, &s.ArchiveAt, &s.ArchivedAt,
	)
	if err != nil {
		return s, err
	}
	if origin.Valid {
		s.Origin = new(domain.Origin)
		if err := json.Unmarshal([]byte(origin.String), s.Origin); err != nil {
			return s, fmt.Errorf("session %q: origin: %w", s.Key, err)
		}
	}
	if delivery.Valid {
		s.Delivery = new(domain.DeliveryContext)
		if err := json.Unmarshal([]byte(delivery.String), s.Delivery); err != nil {
			return s, fmt.Errorf("session %q: deliveryContext: %w", s.Key, err)
		}
	}
	return s, nil
}
