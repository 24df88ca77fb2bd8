package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// sessionColumns lists the sessions table columns in the order of
// sessionArgs and scanSession.
const sessionColumns = `key, agent_id, session_id, kind, channel, chat_type, label, display_name,
	origin, delivery, last_channel, last_to, last_account,
	spawned_by, spawn_depth, spawn_run_id, sandboxed,
	model, model_override, model_provider, thinking_level, verbose_level, send_policy, system_sent, aborted_last_run,
	input_tokens, output_tokens, total_tokens, context_tokens, estimated_cost_usd,
	status, started_at, ended_at, created_at, updated_at, archive_at, archived_at`

const selectSessionByKey = `SELECT ` + sessionColumns + ` FROM sessions WHERE key = ?`

const insertSession = `INSERT INTO sessions (` + sessionColumns + `, search_text)
VALUES (?,?,?,?,?,?,?,?, ?,?,?,?,?, ?,?,?,?, ?,?,?,?,?,?,?,?, ?,?,?,?,?, ?,?,?,?,?,?,?, ?)`

// sessionColumnNames returns the columns of sessionArgs, search_text last.
func sessionColumnNames() []string {
	names := strings.Split(sessionColumns+", search_text", ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// updateSessionQuery returns an UPDATE of the columns whose values differ
// between old and new (both from sessionArgs) and the new values, or ""
// when nothing changed. The key (column 0) never changes. names is
// sessionColumnNames().
func updateSessionQuery(names []string, old, new []any) (string, []any) {
	var b strings.Builder
	var vals []any
	for i := 1; i < len(new); i++ {
		if old[i] == new[i] {
			continue
		}
		if len(vals) > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[i])
		b.WriteString(" = ?")
		vals = append(vals, new[i])
	}
	if len(vals) == 0 {
		return "", nil
	}
	return "UPDATE sessions SET " + b.String() + " WHERE key = ?", vals
}

// searchSep joins the searchable fields so a match cannot span two of them.
const searchSep = "\x1f"

// searchText is what SessionQuery.Search matches. Go lower-cases it, so
// the match is case-insensitive beyond ASCII (SQLite's lower() is not).
func searchText(s domain.Session) string {
	return strings.ToLower(s.Key + searchSep + s.Label + searchSep + s.DisplayName)
}

func sessionArgs(s domain.Session) ([]any, error) {
	origin, err := jsonOrNull(s.Origin)
	if err != nil {
		return nil, fmt.Errorf("origin: %w", err)
	}
	delivery, err := jsonOrNull(s.Delivery)
	if err != nil {
		return nil, fmt.Errorf("deliveryContext: %w", err)
	}
	return []any{
		s.Key, s.AgentID, s.SessionID, s.Kind, s.Channel, s.ChatType, s.Label, s.DisplayName,
		origin, delivery, s.LastChannel, s.LastTo, s.LastAccount,
		s.SpawnedBy, s.SpawnDepth, s.SpawnRunID, s.Sandboxed,
		s.Model, s.ModelOverride, s.ModelProvider, s.ThinkingLevel, s.VerboseLevel, s.SendPolicy, s.SystemSent, s.AbortedLastRun,
		s.InputTokens, s.OutputTokens, s.TotalTokens, s.ContextTokens, s.EstimatedCostUSD,
		s.Status, s.StartedAt, s.EndedAt, s.CreatedAt, s.UpdatedAt, s.ArchiveAt, s.ArchivedAt,
		searchText(s),
	}, nil
}

// jsonOrNull encodes a nil pointer as SQL NULL so it reads back as nil.
func jsonOrNull[T any](v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

func scanSession(r rowScanner) (domain.Session, error) {
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

func getSession(row *sql.Row, key string) (domain.Session, error) {
	s, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Session{}, fmt.Errorf("session %q: %w", key, domain.ErrNotFound)
	}
	if err != nil {
		return domain.Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	return s, nil
}

// GetSession returns the row of key, or domain.ErrNotFound.
func (s *Store) GetSession(ctx context.Context, key string) (domain.Session, error) {
	if s.closed.Load() {
		return domain.Session{}, fmt.Errorf("get session: %w", domain.ErrClosed)
	}
	sess, err := getSession(s.queryRowR(ctx, selectSessionByKey, key), key)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return sess, s.readErr("get session", err)
	}
	return sess, err
}

// FindSessionsByID returns every row whose current SessionID is id, in
// list order.
func (s *Store) FindSessionsByID(ctx context.Context, sessionID string) ([]domain.Session, error) {
	return s.querySessions(ctx, "find sessions by id",
		`SELECT `+sessionColumns+` FROM sessions WHERE session_id = ? ORDER BY updated_at DESC, key`, sessionID)
}

// ListSessions returns the rows matching q, newest UpdatedAt first.
func (s *Store) ListSessions(ctx context.Context, q domain.SessionQuery) ([]domain.Session, error) {
	query, args, err := buildSessionQuery(q, false)
	if err != nil {
		return nil, err
	}
	return s.querySessions(ctx, "list sessions", query, args...)
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
	if err := s.queryRowR(ctx, query, args...).Scan(&n); err != nil {
		return 0, s.readErr("count sessions", err)
	}
	return n, nil
}

func (s *Store) querySessions(ctx context.Context, op, query string, args ...any) ([]domain.Session, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("%s: %w", op, domain.ErrClosed)
	}
	rows, err := s.queryR(ctx, query, args...)
	if err != nil {
		return nil, s.readErr(op, err)
	}
	defer rows.Close()
	out := []domain.Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, s.readErr(op, err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr(op, err)
	}
	return out, nil
}

// buildSessionQuery turns q into one SQL statement: the rows in list order,
// or their count.
func buildSessionQuery(q domain.SessionQuery, count bool) (string, []any, error) {
	if q.Limit < 0 {
		return "", nil, domain.Invalid("session query: limit must be >= 0 (got %d)", q.Limit)
	}
	var (
		b     strings.Builder
		where []string
		args  []any
	)
	if q.TreeRoot != "" {
		// UNION (not UNION ALL) stops at keys already seen, so a spawned_by
		// cycle cannot recurse forever.
		b.WriteString(`WITH RECURSIVE tree(key) AS (
	SELECT ? UNION SELECT s.key FROM sessions s JOIN tree t ON s.spawned_by = t.key
) `)
		args = append(args, q.TreeRoot)
		where = append(where, `key IN (SELECT key FROM tree)`)
	}
	if count {
		b.WriteString(`SELECT count(*) FROM sessions`)
	} else {
		b.WriteString(`SELECT ` + sessionColumns + ` FROM sessions`)
	}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	switch {
	case q.OnlyArchived:
		add(`archived_at > 0`)
	case !q.IncludeArchived:
		add(`archived_at <= 0`)
	}
	if q.AgentID != "" {
		add(`agent_id = ?`, q.AgentID)
	}
	if len(q.AgentIDs) > 0 {
		add(`agent_id IN (`+placeholders(len(q.AgentIDs))+`)`, anys(q.AgentIDs)...)
	}
	if len(q.Kinds) > 0 {
		add(`kind IN (`+placeholders(len(q.Kinds))+`)`, anys(q.Kinds)...)
	}
	if q.SpawnedBy != "" {
		add(`spawned_by = ?`, q.SpawnedBy)
	}
	if q.UpdatedSince != 0 {
		add(`updated_at >= ?`, q.UpdatedSince)
	}
	if q.Label != "" {
		add(`label = ?`, q.Label)
	}
	if q.Search != "" {
		add(`instr(search_text, ?) > 0`, strings.ToLower(q.Search))
	}
	if q.AfterUpdatedAt != 0 || q.AfterKey != "" {
		// The first term bounds the index range; the second is the cursor.
		add(`updated_at <= ? AND (updated_at < ? OR key > ?)`, q.AfterUpdatedAt, q.AfterUpdatedAt, q.AfterKey)
	}
	if len(where) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(where, " AND "))
	}
	if !count {
		b.WriteString(" ORDER BY updated_at DESC, key")
		if q.Limit > 0 {
			b.WriteString(limitParam)
			args = append(args, q.Limit)
		}
	}
	return b.String(), args, nil
}

// placeholders returns "?,?,…" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
