package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// AppendMessages appends msgs to the transcript of (key, sessionID). Each
// stored message gets the next Seq of the key, an 8-hex ID unique in the
// transcript (entryid.go), the previous message's ID as ParentID, and
// SessionID. The session row is not touched.
func (t *tx) AppendMessages(key, sessionID string, msgs []domain.Message) ([]domain.Message, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	out, err := t.assign(key, sessionID, msgs)
	if err != nil || len(out) == 0 {
		return out, err
	}
	gen, err := t.insertMessages(key, out)
	if err != nil {
		return nil, fmt.Errorf("append messages to %q: %w", key, err)
	}
	t.remember(key, out, gen)
	return out, nil
}

// assign checks msgs and returns them as they will be stored: each with
// the next Seq of key, its entry ID, its ParentID and sessionID. It marks
// key touched, for the writer's cache to forget if the fn fails.
func (t *tx) assign(key, sessionID string, msgs []domain.Message) ([]domain.Message, error) {
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
	// same generation (the usual case), the parent too.
	last, err := t.lastMessage(key)
	if err != nil {
		return nil, fmt.Errorf("append messages to %q: last message: %w", key, err)
	}
	seq := last.seq
	var parent string
	var parentSeq int64
	switch {
	case last.seq == 0:
	case last.sid == sessionID:
		parent, parentSeq = last.id, last.seq
	default:
		err := t.queryRow(lastOfGenSQL, key, sessionID).Scan(&parentSeq, textCol{&parent})
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("append messages to %q: last id of %q: %w", key, sessionID, err)
		}
	}
	ids, err := t.idSource(key, sessionID, parent, parentSeq)
	if err != nil {
		return nil, fmt.Errorf("append messages to %q: %w", key, err)
	}

	// Mark the key before writing: if this fn fails, the cache forgets it.
	t.touch(key)
	out := make([]domain.Message, len(msgs))
	for i, m := range msgs {
		seq++
		m.Seq, m.ParentID, m.SessionID = seq, parent, sessionID
		if m.ID, err = ids.next(t, seq); err != nil {
			return nil, fmt.Errorf("append messages to %q: messages[%d]: %w", key, i, err)
		}
		out[i] = m
		parent = m.ID
	}
	return out, nil
}

// remember records the newest of out, just stored in generation gen, in
// the writer's cache.
func (t *tx) remember(key string, out []domain.Message, gen int64) {
	last := &out[len(out)-1]
	t.s.cache.put(key, lastMessage{seq: last.Seq, id: last.ID, sid: last.SessionID, gen: gen})
}

// lastOfGenSQL is the seq and id of the newest message of (key ?,
// session id ?).
const lastOfGenSQL = `SELECT m.seq, m.id FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen
WHERE g.session_key = ? AND g.session_id = ? ORDER BY m.seq DESC LIMIT 1`

// gens hands out the generation numbers of one insert's messages, which
// share a key and almost always a session id.
type gens struct {
	sid string
	gen int64
}

func (g *gens) of(t *tx, key, sid string) (int64, error) {
	if g.gen != 0 && g.sid == sid {
		return g.gen, nil
	}
	gen, err := t.genOf(key, sid)
	if err != nil {
		return 0, err
	}
	g.sid, g.gen = sid, gen
	return gen, nil
}

// insertRowsMax is the most messages one INSERT statement stores: fewer
// statements cost less in database/sql and the driver than the rows do.
const insertRowsMax = 16

// insertMessages stores msgs of key, up to insertRowsMax per statement,
// and returns the generation number of the last.
func (t *tx) insertMessages(key string, msgs []domain.Message) (int64, error) {
	buf := t.s.encBuf[:0]
	args := t.s.insertArgs[:0]
	var g gens
	for start := 0; start < len(msgs); start += insertRowsMax {
		chunk := msgs[start:min(start+insertRowsMax, len(msgs))]
		args = args[:0]
		arena := t.s.packBuf[:0]
		for i := range chunk {
			m := &chunk[i]
			gen, err := g.of(t, key, m.SessionID)
			if err != nil {
				return 0, fmt.Errorf("messages[%d]: %w", start+i, err)
			}
			if buf, err = rowcodec.AppendMessageJSON(buf[:0], m); err != nil {
				return 0, fmt.Errorf("messages[%d]: %w", start+i, err)
			}
			args, arena = appendRowArgs(args, arena, gen, m, bodyArg(t.s.codec, buf))
		}
		t.s.packBuf = arena
		last, err := t.execRaw(t.s.insertSQL[len(chunk)], args...)
		if err != nil {
			return 0, fmt.Errorf("messages[%d:%d]: %w", start, start+len(chunk), err)
		}
		t.indexMessages(last, key, chunk)
	}
	clear(args) // let the bodies go
	t.s.encBuf, t.s.insertArgs = buf, args
	return g.gen, nil
}

// appendRowArgs appends the column values of m, in generation gen with
// body, to args, packing its ids into arena (msgcols.go).
func appendRowArgs(args []any, arena []byte, gen int64, m *domain.Message, body any) ([]any, []byte) {
	var id, parent, run any
	arena, id = packText(arena, m.ID)
	arena, parent = packText(arena, m.ParentID)
	arena, run = packText(arena, m.RunID)
	return append(args, gen, m.Seq, id, parent, roleArg(m.Role), run, m.Timestamp, body), arena
}

// insertMessagesSQL returns the INSERTs of 0 to insertRowsMax message rows
// (Store.insertSQL).
func insertMessagesSQL() (q [insertRowsMax + 1]string) {
	for n := 1; n <= insertRowsMax; n++ {
		q[n] = insertMessagesN(n)
	}
	return q
}

func insertMessagesN(n int) string {
	const row = "(?, ?, ?, ?, ?, ?, ?, ?)"
	return `INSERT INTO messages (gen, seq, id, parent_id, role, run_id, timestamp, body) VALUES ` +
		strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

// lastMessageSQL is the newest message of key ? over its generations: one
// seek of the (gen, seq) index per generation.
const lastMessageSQL = `SELECT m.seq, m.id, g.session_id, g.gen FROM message_gens AS g
JOIN messages AS m ON m.rowid = (SELECT rowid FROM messages WHERE gen = g.gen ORDER BY seq DESC LIMIT 1)
WHERE g.session_key = ? ORDER BY m.seq DESC LIMIT 1`

// lastMessage returns the newest message of key, from the writer's cache
// or the (gen, seq) index.
func (t *tx) lastMessage(key string) (lastMessage, error) {
	if m, ok := t.s.cache.last[key]; ok {
		return m, nil
	}
	var m lastMessage
	err := t.queryRow(lastMessageSQL, key).Scan(&m.seq, textCol{&m.id}, &m.sid, &m.gen)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return m, err
	}
	t.s.cache.put(key, m)
	return m, nil
}

// idSource hands out the entry ids of one append.
type idSource struct {
	key, sid string
	salt     uint32
	// legacy: the generation has random ids from before schema version 2;
	// new ids are random too, checked against legacy_entry_ids.
	legacy bool
}

// idSource returns the ids for messages appended to (key, sid), whose last
// message so far is parent at parentSeq ("" when none).
func (t *tx) idSource(key, sid, parent string, parentSeq int64) (idSource, error) {
	src := idSource{key: key, sid: sid}
	if parent != "" && t.s.hasLegacyIDs {
		err := t.queryRow(`SELECT 1 FROM legacy_entry_ids WHERE session_key = ? AND session_id = ? LIMIT 1`, key, sid).Scan(new(int))
		switch {
		case err == nil:
			src.legacy = true
			return src, nil
		case !errors.Is(err, sql.ErrNoRows):
			return src, fmt.Errorf("legacy ids: %w", err)
		}
	}
	if salt, ok := rowcodec.EntrySalt(parent, parentSeq); ok && parent != "" {
		src.salt = salt
		return src, nil
	}
	// A new generation (or a parent id not of this scheme, which only a
	// legacy generation has): a fresh salt.
	src.salt, _ = rowcodec.ParseHex32(t.s.newID())
	return src, nil
}

func (src *idSource) next(t *tx, seq int64) (string, error) {
	if !src.legacy {
		return rowcodec.EntryID(seq, src.salt), nil
	}
	id := t.s.newID()
	_, err := t.exec(`INSERT INTO legacy_entry_ids (session_key, session_id, id) VALUES (?, ?, ?)`, src.key, src.sid, id)
	if isConstraint(err) {
		// The rare reuse of a random id: a UUID cannot collide.
		id = uuid.NewString()
		_, err = t.exec(`INSERT INTO legacy_entry_ids (session_key, session_id, id) VALUES (?, ?, ?)`, src.key, src.sid, id)
	}
	return id, err
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
	if q.Offset < 0 {
		return nil, domain.Invalid("read messages: offset must be >= 0 (got %d)", q.Offset)
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
	args := []any{key}
	// Given the session id, every row's is that one: the column is not
	// read (the driver would make a string of it per row).
	sidCol := "g.session_id"
	if q.SessionID != "" {
		sidCol = "NULL"
	}
	b.WriteString(`SELECT m.seq, m.id, m.parent_id, ` + sidCol + `, m.run_id, m.body
FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen WHERE g.session_key = ?1`)
	if q.SessionID != "" {
		b.WriteString(` AND g.session_id = ?`)
		args = append(args, q.SessionID)
	} else {
		// One statement, so the generation and its messages come from the
		// same snapshot. No row: NULL matches nothing.
		b.WriteString(` AND g.session_id = (SELECT session_id FROM sessions WHERE key = ?1)`)
	}
	if q.BeforeSeq > 0 {
		b.WriteString(` AND m.seq < ?`)
		args = append(args, q.BeforeSeq)
	}
	if len(q.ExcludeRoles) > 0 {
		b.WriteString(` AND m.role NOT IN (` + placeholders(len(q.ExcludeRoles)) + `)`)
		args = append(args, roleArgs(q.ExcludeRoles)...)
	}
	if q.Oldest && q.Limit > 0 && q.Offset == 0 {
		b.WriteString(` ORDER BY m.seq` + limitParam)
		args = append(args, q.Limit)
	} else if q.Limit > 0 {
		b.WriteString(` ORDER BY m.seq DESC` + limitParam)
		args = append(args, q.Limit)
		if q.Offset > 0 {
			b.WriteString(` OFFSET +?`)
			args = append(args, q.Offset)
		}
	} else if q.Offset > 0 {
		// All but the newest Offset: still oldest first.
		b.WriteString(` ORDER BY m.seq DESC LIMIT -1 OFFSET +?`)
		args = append(args, q.Offset)
	} else {
		b.WriteString(` ORDER BY m.seq`)
	}
	// Numbered and anonymous parameters mix: "?" after "?1" takes the next
	// number, so ?1 is bound once and reused.
	rows, err := s.queryR(ctx, b.String(), args...)
	if err != nil {
		return nil, s.readErr("read messages", err)
	}
	defer rows.Close()
	out := []domain.Message{}
	var scratch []byte
	// One string per distinct session id and run id in the call: a run's
	// messages sit next to each other, and each message of a cached
	// context would otherwise hold its own copies.
	var sid, run sharedCol
	var sidDest any = &sid
	if q.SessionID != "" {
		sid.s, sidDest = q.SessionID, new(any) // the NULL column
	}
	// Declared once: Scan's destinations escape, and per row they were
	// four allocations of their own.
	var m domain.Message
	var seq int64
	var id, parent string
	var body sql.RawBytes
	for rows.Next() {
		m = domain.Message{}
		if err := rows.Scan(&seq, textCol{&id}, textCol{&parent}, sidDest, &run, &body); err != nil {
			return nil, s.readErr("read messages", err)
		}
		if scratch, err = decodeBody(s.codec, scratch, body, &m); err != nil {
			return nil, fmt.Errorf("read messages of %q: seq %d: %w", key, seq, err)
		}
		m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID = seq, id, parent, sid.s, run.s
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
