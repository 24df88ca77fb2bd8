package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// sessionColumns are the columns of sessionArgs: what SQL filters, orders
// and indexes on, then data, the whole row in the SQLite store's encoding.
const sessionColumns = `key, agent_id, session_id, kind, spawned_by, label, updated_at, archived_at, search_text, data`

const selectSessionByKey = `SELECT data FROM sessions WHERE key = $1`

// upsertSession inserts or replaces a row by key.
const upsertSession = `INSERT INTO sessions (` + sessionColumns + `) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)
ON CONFLICT (key) DO UPDATE SET agent_id = EXCLUDED.agent_id, session_id = EXCLUDED.session_id,
	kind = EXCLUDED.kind, spawned_by = EXCLUDED.spawned_by, label = EXCLUDED.label,
	updated_at = EXCLUDED.updated_at, archived_at = EXCLUDED.archived_at,
	search_text = EXCLUDED.search_text, data = EXCLUDED.data`

// sessionArgs returns the column values of s in sessionColumns order.
func sessionArgs(s *domain.Session) []any {
	return []any{
		s.Key, s.AgentID, s.SessionID, s.Kind, s.SpawnedBy, pgText(s.Label), s.UpdatedAt, s.ArchivedAt,
		pgText(rowcodec.SessionSearchText(s)), rowcodec.EncodeSessionRow(nil, s),
	}
}

// getSession reads the data column of one row.
func getSession(row pgx.Row, key string) (domain.Session, error) {
	var data []byte
	err := row.Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Session{}, fmt.Errorf("session %q: %w", key, domain.ErrNotFound)
	}
	if err != nil {
		return domain.Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	var s domain.Session
	if err := rowcodec.DecodeSessionRow(string(data), &s); err != nil {
		return domain.Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	return s, nil
}

// PutSession inserts or replaces the row with s.Key.
func (t *tx) PutSession(s domain.Session) error {
	if err := t.check(); err != nil {
		return err
	}
	if s.Key == "" {
		return domain.Invalid("put session: key is required")
	}
	// Deferred: nothing comes back but success, and the next statement
	// (or the commit) carries it in the same round trip.
	t.deferWrite(fmt.Sprintf("put session %q", s.Key), upsertSession, sessionArgs(&s)...)
	return nil
}

// DeleteSession removes the row and every message of the key, of every
// generation. Deleting a key that has no row is not an error.
func (t *tx) DeleteSession(key string) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := t.lockKey(key); err != nil {
		return fmt.Errorf("delete session %q: %w", key, err)
	}
	if _, err := t.exec(`DELETE FROM messages WHERE session_key = $1`, key); err != nil {
		return fmt.Errorf("delete session %q: messages: %w", key, err)
	}
	if _, err := t.exec(`DELETE FROM sessions WHERE key = $1`, key); err != nil {
		return fmt.Errorf("delete session %q: %w", key, err)
	}
	// Its ancestors' tree rollups keep what it spent.
	t.deferWrite(fmt.Sprintf("delete session %q: account", key), `DELETE FROM session_accounts WHERE session_key = $1`, key)
	if t.s.hasLegacyIDs.Load() {
		if _, err := t.exec(`DELETE FROM legacy_entry_ids WHERE session_key = $1`, key); err != nil {
			return fmt.Errorf("delete session %q: legacy ids: %w", key, err)
		}
	}
	return nil
}

// GetSession returns the row of key, or domain.ErrNotFound.
func (s *Store) GetSession(ctx context.Context, key string) (domain.Session, error) {
	if s.closed.Load() {
		return domain.Session{}, fmt.Errorf("get session: %w", domain.ErrClosed)
	}
	sess, err := getSession(s.queryRow(ctx, selectSessionByKey, key), key)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return sess, s.readErr("get session", err)
	}
	return sess, err
}

// FindSessionsByID returns every row whose current SessionID is id, in
// list order.
func (s *Store) FindSessionsByID(ctx context.Context, sessionID string) ([]domain.Session, error) {
	return s.querySessions(ctx, "find sessions by id",
		`SELECT data FROM sessions WHERE session_id = $1 ORDER BY updated_at DESC, key`, sessionID)
}

// ListSessions returns the rows matching q, newest UpdatedAt first.
func (s *Store) ListSessions(ctx context.Context, q domain.SessionQuery) ([]domain.Session, error) {
	if q.Offset < 0 {
		return nil, domain.Invalid("list sessions: offset must be >= 0 (got %d)", q.Offset)
	}
	query, args, err := buildSessionQuery(q, false)
	if err != nil {
		return nil, err
	}
	rows, err := s.querySessions(ctx, "list sessions", query, args...)
	if err == nil && q.Limit == 0 {
		// A listing of (nearly) every row: the server scans the table in
		// storage order instead of walking the list-order index with a
		// random heap fetch per entry, and Go sorts the decoded rows.
		rowcodec.SortSessions(rows)
		// Without a limit the rows are sorted here, so the offset applies here.
		rows = rows[min(q.Offset, len(rows)):]
	}
	return rows, err
}

// CountSessions counts the rows matching q's filters and cursor; Limit is
// ignored.
func (s *Store) CountSessions(ctx context.Context, q domain.SessionQuery) (int, error) {
	query, args, err := buildSessionQuery(q, true)
	if err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, fmt.Errorf("count sessions: %w", domain.ErrClosed)
	}
	var n int
	if err := s.queryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, s.readErr("count sessions", err)
	}
	return n, nil
}

// querySessions runs a query whose only column is data.
func (s *Store) querySessions(ctx context.Context, op, query string, args ...any) ([]domain.Session, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("%s: %w", op, domain.ErrClosed)
	}
	if strings.Contains(query, " LIMIT ") {
		// How far a list-order index walk goes depends on the values.
		args = customPlan(args)
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.readErr(op, err)
	}
	defer rows.Close()
	out := []domain.Session{}
	var data []byte // reused: DecodeSessionRow copies it into one string
	for rows.Next() {
		if err := rows.Scan(&data); err != nil {
			return nil, s.readErr(op, err)
		}
		out = append(out, domain.Session{})
		if err := rowcodec.DecodeSessionRow(string(data), &out[len(out)-1]); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr(op, err)
	}
	return out, nil
}

// args numbers the parameters of a statement being built.
type args struct{ vals []any }

// add appends v and returns its placeholder ($n).
func (a *args) add(v any) string {
	a.vals = append(a.vals, v)
	return "$" + strconv.Itoa(len(a.vals))
}

// buildSessionQuery turns q into one SQL statement: the rows (in list
// order when q has a limit), or their count.
func buildSessionQuery(q domain.SessionQuery, count bool) (string, []any, error) {
	if q.Limit < 0 {
		return "", nil, domain.Invalid("session query: limit must be >= 0 (got %d)", q.Limit)
	}
	var (
		b     strings.Builder
		where []string
		a     args
	)
	if q.TreeRoot != "" {
		// UNION (not UNION ALL) stops at keys already seen, so a spawned_by
		// cycle cannot recurse forever.
		b.WriteString(`WITH RECURSIVE tree(key) AS (
	SELECT ` + a.add(q.TreeRoot) + `::text COLLATE "C" UNION SELECT s.key FROM sessions s JOIN tree t ON s.spawned_by = t.key
) `)
		where = append(where, `key IN (SELECT key FROM tree)`)
	}
	if count {
		b.WriteString(`SELECT count(*) FROM sessions`)
	} else {
		b.WriteString(`SELECT data FROM sessions`)
	}
	switch {
	case q.OnlyArchived:
		where = append(where, `archived_at > 0`)
	case !q.IncludeArchived:
		where = append(where, `archived_at <= 0`)
	}
	if q.ExcludeCronRuns {
		// The rest of agent:<id>:<rest> starts after the second colon.
		where = append(where, `NOT ((key LIKE 'agent:%' AND substr(key, length(split_part(key, ':', 1)) + length(split_part(key, ':', 2)) + 3) LIKE 'cron:%:run:%') OR key LIKE 'cron:%:run:%')`)
	}
	if q.AgentID != "" {
		where = append(where, `agent_id = `+a.add(q.AgentID))
	}
	if len(q.AgentIDs) > 0 {
		where = append(where, `agent_id = ANY(`+a.add(q.AgentIDs)+`::text[])`)
	}
	if len(q.Kinds) > 0 {
		where = append(where, `kind = ANY(`+a.add(q.Kinds)+`::text[])`)
	}
	if q.SpawnedBy != "" {
		where = append(where, `spawned_by = `+a.add(q.SpawnedBy))
	}
	if q.UpdatedSince != 0 {
		where = append(where, `updated_at >= `+a.add(q.UpdatedSince))
	}
	if q.Label != "" {
		where = append(where, `label = `+a.add(q.Label))
	}
	if q.Search != "" {
		// strpos is a literal match: no LIKE wildcards to escape.
		where = append(where, `strpos(search_text, `+a.add(strings.ToLower(q.Search))+`) > 0`)
	}
	if q.AfterUpdatedAt != 0 || q.AfterKey != "" {
		u, k := a.add(q.AfterUpdatedAt), a.add(q.AfterKey)
		// The first term bounds the index range; the second is the cursor.
		where = append(where, `updated_at <= `+u+` AND (updated_at < `+u+` OR key > `+k+`)`)
	}
	if len(where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(where, " AND "))
	}
	if !count && q.Limit > 0 {
		// Without a limit the caller sorts; see ListSessions.
		b.WriteString(" ORDER BY updated_at DESC, key LIMIT " + a.add(q.Limit))
		if q.Offset > 0 {
			b.WriteString(" OFFSET " + a.add(q.Offset))
		}
	}
	return b.String(), a.vals, nil
}
