package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// sessionColumns lists the columns of sessionArgs: what SQL filters,
// orders and indexes on, then data, the whole row (sessionrow.go).
const sessionColumns = `key, agent_id, session_id, kind, spawned_by, label, updated_at, archived_at, search_text, data`

const selectSessionByKey = selectData + ` WHERE key = ?`

// insertSessionIfNew inserts a row unless its key has one already.
const insertSessionIfNew = `INSERT INTO sessions (` + sessionColumns + `) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (key) DO NOTHING`

// sessionColumnNames returns the columns of sessionArgs.
func sessionColumnNames() []string {
	names := strings.Split(sessionColumns, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// updateChangedQuery returns an UPDATE of table's columns whose values
// differ between old and new (both in names' order) and the new values,
// with room for one more (the caller appends the key's value), or ""
// when nothing changed. Column 0 is the row's key (keyColumn), which
// never changes. The statement text for each set of changed columns is
// built once (queries; only the writer goroutine uses it).
func updateChangedQuery(queries map[updateShape]string, table, keyColumn string, names []string, old, new []any) (string, []any) {
	var mask uint64 // bit i: column i changed (tables of up to 64 columns)
	var vals []any
	for i := 1; i < len(new); i++ {
		if sameArg(old[i], new[i]) {
			continue
		}
		if vals == nil {
			vals = make([]any, 0, len(new)-i+1)
		}
		vals = append(vals, new[i])
		if i < 64 {
			mask |= 1 << i
		}
	}
	if len(vals) == 0 {
		return "", nil
	}
	cacheable := len(new) <= 64
	shape := updateShape{table: table, mask: mask}
	if cacheable {
		if q, ok := queries[shape]; ok {
			return q, vals
		}
	}
	var b strings.Builder
	b.WriteString("UPDATE " + table + " SET ")
	first := true
	for i := 1; i < len(new); i++ {
		if sameArg(old[i], new[i]) {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(names[i])
		b.WriteString(" = ?")
	}
	b.WriteString(" WHERE " + keyColumn + " = ?")
	q := b.String()
	if cacheable && len(queries) < maxCachedStmts {
		queries[shape] = q
	}
	return q, vals
}

// updateShape names one UPDATE of updateChangedQuery: a table and the set
// of its columns (bits by position) it sets.
type updateShape struct {
	table string
	mask  uint64
}

// sameArg compares two values of sessionArgs; data is a []byte, which ==
// on interfaces cannot compare.
func sameArg(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return a == b
}

// sessionArgs returns the column values of s in sessionColumns order.
func sessionArgs(s *domain.Session) []any {
	return []any{
		s.Key, s.AgentID, s.SessionID, s.Kind, s.SpawnedBy, s.Label, s.UpdatedAt, s.ArchivedAt,
		rowcodec.SessionSearchText(s), rowcodec.EncodeSessionRow(nil, s),
	}
}

// getSession reads the data column of one row.
func getSession(row *sql.Row, key string) (domain.Session, error) {
	var data string
	err := row.Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Session{}, fmt.Errorf("session %q: %w", key, domain.ErrNotFound)
	}
	if err != nil {
		return domain.Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	var s domain.Session
	if err := rowcodec.DecodeSessionRow(data, &s); err != nil {
		return domain.Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	return s, nil
}

// GetSession returns the row of key, or domain.ErrNotFound.
func (s *Store) GetSession(ctx context.Context, key string) (domain.Session, error) {
	if s.closed.Load() {
		return domain.Session{}, fmt.Errorf("get session: %w", domain.ErrClosed)
	}
	sess, err := getSession(s.pointRowR(ctx, selectSessionByKey, key), key)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return sess, s.readErr("get session", err)
	}
	return sess, err
}

// FindSessionsByID returns every row whose current SessionID is id, in
// list order.
func (s *Store) FindSessionsByID(ctx context.Context, sessionID string) ([]domain.Session, error) {
	return s.querySessions(ctx, "find sessions by id", false, 0,
		selectData+` WHERE session_id = ? ORDER BY updated_at DESC, key`, sessionID)
}

// maxLimitHint bounds the rows a limited listing allocates up front.
const maxLimitHint = 1024

// ListSessions returns the rows matching q, newest UpdatedAt first.
func (s *Store) ListSessions(ctx context.Context, q domain.SessionQuery) ([]domain.Session, error) {
	if q.Offset < 0 {
		return nil, domain.Invalid("list sessions: offset must be >= 0 (got %d)", q.Offset)
	}
	query, args, err := buildSessionQuery(q, false)
	if err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("list sessions: %w", domain.ErrClosed)
	}
	if q.Limit > 0 {
		// The index hands rows over in list order and LIMIT stops early;
		// the slice is sized for a full page (growing it to 201 rows
		// allocated and copied twice that).
		return s.querySessions(ctx, "list sessions", false, min(q.Limit, maxLimitHint), query, args...)
	}
	hint := 0
	if unfiltered(q) {
		// The row count bounds the result, so the slice is allocated once
		// instead of growing (and copying) its way up to a 100,000 rows.
		// It is a hint: rows added meanwhile still fit, append grows.
		if err := s.queryRowR(ctx, `SELECT count(*) FROM sessions`).Scan(&hint); err != nil {
			return nil, s.readErr("list sessions", err)
		}
	}
	rows, err := s.querySessions(ctx, "list sessions", true, hint, query, args...)
	if err != nil || q.Offset == 0 {
		return rows, err
	}
	// Without a limit the rows are sorted in Go, so the offset applies here.
	return rows[min(q.Offset, len(rows)):], nil
}

// unfiltered reports whether q selects (nearly) every row: no filter but
// the archived ones and no cursor.
func unfiltered(q domain.SessionQuery) bool {
	return q.AgentID == "" && len(q.AgentIDs) == 0 && len(q.Kinds) == 0 && q.SpawnedBy == "" &&
		q.TreeRoot == "" && q.UpdatedSince == 0 && q.Label == "" && q.Search == "" &&
		!q.OnlyArchived && q.AfterUpdatedAt == 0 && q.AfterKey == ""
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

// selectData selects the data column as TEXT: the driver then hands each
// row over as a Go string in one allocation, where a BLOB arrives as a
// []byte that must be copied into a string again.
const selectData = `SELECT CAST(data AS TEXT) FROM sessions`

// querySessions runs a query whose only column is data. Unless the query
// has a LIMIT, it has no ORDER BY either (sortInGo): SQLite then scans the
// table in storage order instead of walking the list-order index with one
// random table lookup per row, and Go sorts the decoded rows, which for
// 100,000 rows costs a fraction of those lookups. hint is the expected row
// count (0 if unknown).
func (s *Store) querySessions(ctx context.Context, op string, sortInGo bool, hint int, query string, args ...any) ([]domain.Session, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("%s: %w", op, domain.ErrClosed)
	}
	rows, err := s.queryR(ctx, query, args...)
	if err != nil {
		return nil, s.readErr(op, err)
	}
	defer rows.Close()
	out := make([]domain.Session, 0, hint)
	var data string
	for rows.Next() {
		if err := rows.Scan(&data); err != nil {
			return nil, s.readErr(op, err)
		}
		out = append(out, domain.Session{})
		// The row's strings are all substrings of data: one allocation.
		if err := rowcodec.DecodeSessionRow(data, &out[len(out)-1]); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr(op, err)
	}
	if sortInGo {
		rowcodec.SortSessions(out)
	}
	return out, nil
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
		b.WriteString(selectData)
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
	if q.ExcludeCronRuns {
		// The rest of agent:<id>:<rest> starts after the second colon.
		add(`NOT ((key LIKE 'agent:%' AND substr(key, 7 + instr(substr(key, 7), ':')) LIKE 'cron:%:run:%') OR key LIKE 'cron:%:run:%')`)
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
	if !count && q.Limit > 0 {
		// Without a limit the caller sorts; see querySessions.
		b.WriteString(" ORDER BY updated_at DESC, key" + limitParam)
		args = append(args, q.Limit)
		if q.Offset > 0 {
			b.WriteString(" OFFSET +?")
			args = append(args, q.Offset)
		}
	}
	return b.String(), args, nil
}

// placeholders returns "?,?,…" with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anys[T ~string](ss []T) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}
