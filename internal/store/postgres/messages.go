package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// Entry ids follow the SQLite store's scheme (rowcodec.EntryID): the id of
// the message at seq is a bijection of seq XOR a salt drawn when the
// generation starts, so ids are unique in a generation without an index,
// and the salt is recovered from the parent's id. Generations copied from
// a store whose ids were random are listed in legacy_entry_ids and get
// random ids checked against it, as in the SQLite store.

// AppendMessages appends msgs to the transcript of (key, sessionID),
// assigning Seq, ID and ParentID. The key's advisory lock makes appends
// to one key serial across processes; the primary key (session_key, seq)
// would refuse a duplicate seq anyway.
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
	// Encode first: invalid JSON is refused before anything is locked or written.
	bodies := make([]string, len(msgs))
	for i := range msgs {
		var err error
		if t.encBuf, err = rowcodec.AppendMessageJSON(t.encBuf[:0], &msgs[i]); err != nil {
			return nil, domain.Invalid("append messages to %q: messages[%d]: %v", key, i, err)
		}
		bodies[i] = string(t.encBuf)
	}
	if err := t.lockKey(key); err != nil {
		return nil, fmt.Errorf("append messages to %q: %w", key, err)
	}
	// The key's last message gives the next seq and, when it belongs to
	// the same generation (the usual case), the parent too.
	var lastSeq, parentSeq int64
	var lastID, lastSID, parent string
	err := t.queryRow(`SELECT seq, id, session_id FROM messages WHERE session_key = $1 ORDER BY seq DESC LIMIT 1`,
		key).Scan(&lastSeq, &lastID, &lastSID)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("append messages to %q: last message: %w", key, err)
	}
	switch {
	case lastSeq == 0:
	case lastSID == sessionID:
		parent, parentSeq = lastID, lastSeq
	default:
		err := t.queryRow(`SELECT seq, id FROM messages WHERE session_key = $1 AND session_id = $2 ORDER BY seq DESC LIMIT 1`,
			key, sessionID).Scan(&parentSeq, &parent)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("append messages to %q: last id of %q: %w", key, sessionID, err)
		}
	}
	legacy := false
	if parent != "" && t.s.hasLegacyIDs.Load() {
		err := t.queryRow(`SELECT 1 FROM legacy_entry_ids WHERE session_key = $1 AND session_id = $2 LIMIT 1`,
			key, sessionID).Scan(new(int))
		switch {
		case err == nil:
			legacy = true
		case !errors.Is(err, pgx.ErrNoRows):
			return nil, fmt.Errorf("append messages to %q: legacy ids: %w", key, err)
		}
	}
	salt, ok := rowcodec.EntrySalt(parent, parentSeq)
	if !ok || parent == "" {
		salt = randomSalt()
	}

	out := make([]domain.Message, len(msgs))
	seq := lastSeq
	for i, m := range msgs {
		seq++
		m.Seq, m.ParentID, m.SessionID = seq, parent, sessionID
		if legacy {
			if m.ID, err = t.legacyID(key, sessionID); err != nil {
				return nil, fmt.Errorf("append messages to %q: messages[%d]: %w", key, i, err)
			}
		} else {
			m.ID = rowcodec.EntryID(seq, salt)
		}
		out[i] = m
		parent = m.ID
	}
	if err := t.insertMessages(key, out, bodies); err != nil {
		return nil, fmt.Errorf("append messages to %q: %w", key, err)
	}
	return out, nil
}

// insertMessages stores msgs of key with their encoded bodies in one
// statement, whatever their number.
func (t *tx) insertMessages(key string, msgs []domain.Message, bodies []string) error {
	n := len(msgs)
	keys, sids, ids, parents, roles, runIDs := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	seqs, stamps := make([]int64, n), make([]int64, n)
	texts := make([]string, n)
	for i := range msgs {
		m := &msgs[i]
		keys[i], sids[i], ids[i], parents[i], roles[i], runIDs[i] = key, m.SessionID, m.ID, m.ParentID, pgText(m.Role), m.RunID
		seqs[i], stamps[i] = m.Seq, m.Timestamp
		// The search index (search.go) is written with the message.
		texts[i] = pgText(t.s.redactor.SearchText(*m))
	}
	// Deferred like PutSession: the rows' seqs and ids are already known.
	t.deferWrite(fmt.Sprintf("append messages to %q", key), `INSERT INTO messages (session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body, tsv)
		SELECT u.k, u.s, u.sid, u.id, u.p, u.r, u.run, u.ts, u.b, to_tsvector('simple', u.txt)
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[])
			AS u(k, s, sid, id, p, r, run, ts, b, txt)`,
		keys, seqs, sids, ids, parents, roles, runIDs, stamps, bodies, texts)
	return nil
}

// legacyID returns a random id new to a legacy generation and records it.
func (t *tx) legacyID(key, sid string) (string, error) {
	for _, id := range []string{randomID(), uuid.NewString()} { // a UUID cannot collide
		tag, err := t.exec(`INSERT INTO legacy_entry_ids (session_key, session_id, id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			key, sid, id)
		if err != nil {
			return "", err
		}
		if tag.RowsAffected() == 1 {
			return id, nil
		}
	}
	return "", errors.New("no free entry id")
}

// randomID returns 8 random hex characters.
func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

func randomSalt() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// ReadMessages returns messages of key in chronological order. Only the
// requested tail is read, walking the (session_key, seq) primary key
// backwards: the newest Limit messages (after ExcludeRoles and BeforeSeq)
// of generation q.SessionID or, when empty, the session row's current one.
func (s *Store) ReadMessages(ctx context.Context, key string, q domain.MessageQuery) ([]domain.Message, error) {
	if q.Limit < 0 {
		return nil, domain.Invalid("read messages: limit must be >= 0 (got %d)", q.Limit)
	}
	if q.BeforeSeq < 0 {
		return nil, domain.Invalid("read messages: beforeSeq must be >= 0 (got %d)", q.BeforeSeq)
	}
	if q.Offset < 0 {
		return nil, domain.Invalid("read messages: offset must be >= 0 (got %d)", q.Offset)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("read messages: %w", domain.ErrClosed)
	}
	if q.BeforeID != "" {
		seq, err := s.seqOfID(ctx, key, q.SessionID, q.BeforeID)
		if err != nil {
			return nil, err
		}
		if q.BeforeSeq == 0 || seq < q.BeforeSeq {
			q.BeforeSeq = seq
		}
	}
	var b strings.Builder
	var a args
	k := a.add(key)
	b.WriteString(`SELECT seq, id, parent_id, session_id, run_id, body FROM messages WHERE session_key = ` + k)
	if q.SessionID != "" {
		b.WriteString(` AND session_id = ` + a.add(q.SessionID))
	} else {
		// One statement, so the generation and its messages come from the
		// same snapshot. No row: NULL matches nothing.
		b.WriteString(` AND session_id = (SELECT session_id FROM sessions WHERE key = ` + k + `)`)
	}
	if q.BeforeSeq > 0 {
		b.WriteString(` AND seq < ` + a.add(q.BeforeSeq))
	}
	if len(q.ExcludeRoles) > 0 {
		b.WriteString(` AND NOT (role = ANY(` + a.add(q.ExcludeRoles) + `::text[]))`)
	}
	switch {
	case q.Oldest && q.Limit > 0 && q.Offset == 0:
		b.WriteString(` ORDER BY seq LIMIT ` + a.add(q.Limit))
	case q.Limit > 0:
		b.WriteString(` ORDER BY seq DESC LIMIT ` + a.add(q.Limit))
		if q.Offset > 0 {
			b.WriteString(` OFFSET ` + a.add(q.Offset))
		}
	case q.Offset > 0:
		// All but the newest Offset: reversed to oldest first below.
		b.WriteString(` ORDER BY seq DESC OFFSET ` + a.add(q.Offset))
	default:
		b.WriteString(` ORDER BY seq`)
	}
	// Planned for these values each time (see customPlan): the cheap plan
	// walks the primary key backwards from the newest seq.
	rows, err := s.pool.Query(ctx, b.String(), customPlan(a.vals)...)
	if err != nil {
		return nil, s.readErr("read messages", err)
	}
	defer rows.Close()
	out := []domain.Message{}
	for rows.Next() {
		var m domain.Message
		var seq int64
		var id, parent, sid, runID string
		var body []byte
		if err := rows.Scan(&seq, &id, &parent, &sid, &runID, &body); err != nil {
			return nil, s.readErr("read messages", err)
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("read messages of %q: seq %d: %w", key, seq, err)
		}
		m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID = seq, id, parent, sid, runID
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("read messages", err)
	}
	if (q.Limit > 0 || q.Offset > 0) && !(q.Oldest && q.Offset == 0) {
		slices.Reverse(out)
	}
	return out, nil
}
