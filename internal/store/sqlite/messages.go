package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// AppendMessages appends msgs to the transcript of (key, sessionID). Each
// stored message gets the next Seq of the key, a fresh 8-hex ID unique in
// the transcript (a UUID in the rare case of a collision), the previous
// message's ID as ParentID, and SessionID. The session row is not touched.
func (t *tx) AppendMessages(key, sessionID string, msgs []domain.Message) ([]domain.Message, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if key == "" {
		return nil, domain.Invalid("append messages: key is required")
	}
	if sessionID == "" {
		return nil, domain.Invalid("append messages to %q: sessionId is required", key)
	}
	for i, m := range msgs {
		if m.Role == "" {
			return nil, domain.Invalid("append messages to %q: messages[%d].role is required", key, i)
		}
	}
	if len(msgs) == 0 {
		return []domain.Message{}, nil
	}

	// The key's last message gives the next seq and, when it belongs to the
	// same generation (the usual case), the parent id too.
	var (
		seq            int64
		lastID, parent string
		lastSID        string
	)
	err := t.queryRow(`SELECT seq, id, session_id FROM messages WHERE session_key = ? ORDER BY seq DESC LIMIT 1`,
		key).Scan(&seq, &lastID, &lastSID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("append messages to %q: last message: %w", key, err)
	case lastSID == sessionID:
		parent = lastID
	default:
		err := t.queryRow(`SELECT id FROM messages WHERE session_key = ? AND session_id = ? ORDER BY seq DESC LIMIT 1`,
			key, sessionID).Scan(&parent)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("append messages to %q: last id of %q: %w", key, sessionID, err)
		}
	}

	out := make([]domain.Message, len(msgs))
	for i, m := range msgs {
		seq++
		m.Seq, m.ID, m.ParentID, m.SessionID = seq, t.s.newID(), parent, sessionID
		if err := t.insertMessage(key, &m); err != nil {
			return nil, fmt.Errorf("append messages to %q: messages[%d]: %w", key, i, err)
		}
		out[i] = m
		parent = m.ID
	}
	return out, nil
}

const insertMessage = `INSERT INTO messages (session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertMessage stores m. The unique index on (key, sessionId, id) catches
// the rare reuse of a random 8-hex id; m then gets a UUID instead, which
// saves a lookup per message in the common case.
func (t *tx) insertMessage(key string, m *domain.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	insert := func() error {
		_, err := t.exec(insertMessage, key, m.Seq, m.SessionID, m.ID, m.ParentID, m.Role, m.RunID, m.Timestamp, string(body))
		return err
	}
	err = insert()
	if isConstraint(err) {
		m.ID = uuid.NewString()
		err = insert()
	}
	return err
}

// ReadMessages returns messages of key in chronological order. Only the
// requested tail is read: the newest Limit messages (after ExcludeRoles and
// BeforeSeq), from the generation q.SessionID or, when empty, the session
// row's current one (none when the key has no row).
func (s *Store) ReadMessages(ctx context.Context, key string, q domain.MessageQuery) ([]domain.Message, error) {
	if q.Limit < 0 {
		return nil, domain.Invalid("read messages: limit must be >= 0 (got %d)", q.Limit)
	}
	if q.BeforeSeq < 0 {
		return nil, domain.Invalid("read messages: beforeSeq must be >= 0 (got %d)", q.BeforeSeq)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("read messages: %w", domain.ErrClosed)
	}
	var b strings.Builder
	args := []any{key}
	b.WriteString(`SELECT seq, id, parent_id, session_id, run_id, body FROM messages WHERE session_key = ?1`)
	if q.SessionID != "" {
		b.WriteString(` AND session_id = ?`)
		args = append(args, q.SessionID)
	} else {
		// One statement, so the generation and its messages come from the
		// same snapshot. No row: NULL matches nothing.
		b.WriteString(` AND session_id = (SELECT session_id FROM sessions WHERE key = ?1)`)
	}
	if q.BeforeSeq > 0 {
		b.WriteString(` AND seq < ?`)
		args = append(args, q.BeforeSeq)
	}
	if len(q.ExcludeRoles) > 0 {
		b.WriteString(` AND role NOT IN (` + placeholders(len(q.ExcludeRoles)) + `)`)
		args = append(args, anys(q.ExcludeRoles)...)
	}
	if q.Limit > 0 {
		b.WriteString(` ORDER BY seq DESC` + limitParam)
		args = append(args, q.Limit)
	} else {
		b.WriteString(` ORDER BY seq`)
	}
	// Numbered and anonymous parameters mix: "?" after "?1" takes the next
	// number, so ?1 is bound once and reused.
	rows, err := s.queryR(ctx, b.String(), args...)
	if err != nil {
		return nil, s.readErr("read messages", err)
	}
	defer rows.Close()
	out := []domain.Message{}
	for rows.Next() {
		var m domain.Message
		var seq int64
		var id, parent, sid, runID, body string
		if err := rows.Scan(&seq, &id, &parent, &sid, &runID, &body); err != nil {
			return nil, s.readErr("read messages", err)
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, fmt.Errorf("read messages of %q: seq %d: %w", key, seq, err)
		}
		m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID = seq, id, parent, sid, runID
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("read messages", err)
	}
	if q.Limit > 0 {
		slices.Reverse(out)
	}
	return out, nil
}
