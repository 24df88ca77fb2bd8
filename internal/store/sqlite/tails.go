package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/switchboard-go/switchboard/internal/domain"
)

var _ domain.TailsReader = (*Store)(nil)

// tailsSQL reads the newest ?3 messages of each generation in the JSON
// array ?1 ([[key, sessionId], ...]) whose role is not in the JSON array
// ?2; an empty sessionId is the key's current generation, as in
// ReadMessages. For each generation the correlated subquery walks the
// messages_generation index backwards from its newest seq, so a
// generation costs one index seek however long its transcript is; the
// array index (g.key) says which generation a row belongs to. One
// statement, prepared once, instead of one query per generation.
const tailsSQL = `SELECT g.key, m.seq, m.id, m.parent_id, m.session_id, m.run_id, m.body
FROM json_each(?1) AS g
JOIN messages AS m ON m.rowid IN (
	SELECT t.rowid FROM messages AS t
	WHERE t.session_key = g.value ->> 0
	AND t.session_id = coalesce(nullif(g.value ->> 1, ''), (SELECT session_id FROM sessions WHERE key = g.value ->> 0))
	AND t.role NOT IN (SELECT value FROM json_each(?2))
	ORDER BY t.seq DESC LIMIT +?3)`

// ReadTails implements domain.TailsReader.
func (s *Store) ReadTails(ctx context.Context, gens []domain.Generation, limit int, excludeRoles []string) ([][]domain.Message, error) {
	if limit < 1 {
		return nil, domain.Invalid("read tails: limit must be >= 1 (got %d)", limit)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("read tails: %w", domain.ErrClosed)
	}
	out := make([][]domain.Message, len(gens))
	if len(gens) == 0 {
		return out, nil
	}
	arg := make([]byte, 0, 64*len(gens))
	arg = append(arg, '[')
	for i, g := range gens {
		if i > 0 {
			arg = append(arg, ',')
		}
		arg = append(arg, '[')
		arg = appendJSONString(arg, g.Key)
		arg = append(arg, ',')
		arg = appendJSONString(arg, g.SessionID)
		arg = append(arg, ']')
	}
	arg = append(arg, ']')
	roles := []byte{'['}
	for i, r := range excludeRoles {
		if i > 0 {
			roles = append(roles, ',')
		}
		roles = appendJSONString(roles, r)
	}
	roles = append(roles, ']')

	rows, err := s.queryR(ctx, tailsSQL, string(arg), string(roles), limit)
	if err != nil {
		return nil, s.readErr("read tails", err)
	}
	defer rows.Close()
	// One backing array for every tail, sized for full tails: a Message is
	// ~300 bytes, and growing 200 small slices was the listing's largest
	// allocation.
	size := min(len(gens)*limit, 4096)
	msgs := make([]domain.Message, 0, size)
	gen := make([]int, 0, size)
	var scratch []byte
	for rows.Next() {
		var m domain.Message
		var gi int
		var seq int64
		var id, parent, sid, runID string
		var body sql.RawBytes
		if err := rows.Scan(&gi, &seq, &id, &parent, &sid, &runID, &body); err != nil {
			return nil, s.readErr("read tails", err)
		}
		if gi < 0 || gi >= len(gens) {
			return nil, fmt.Errorf("read tails: generation index %d out of range", gi)
		}
		if scratch, err = decodeBody(s.codec, scratch, body, &m); err != nil {
			return nil, fmt.Errorf("read tails of %q: seq %d: %w", gens[gi].Key, seq, err)
		}
		m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID = seq, id, parent, sid, runID
		msgs = append(msgs, m)
		gen = append(gen, gi)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("read tails", err)
	}
	sortTails(msgs, gen)
	for i, start := 0, 0; i < len(out); i++ {
		end := start
		for end < len(gen) && gen[end] == i {
			end++
		}
		// A full slice expression: appending to one tail never writes
		// into the next.
		out[i] = msgs[start:end:end]
		start = end
	}
	return out, nil
}

// sortTails orders msgs (and gen beside them) by generation, then seq.
// SQLite returns them grouped by generation in rowid order, which is seq
// order for appended messages, so this is usually one check.
func sortTails(msgs []domain.Message, gen []int) {
	less := func(i, j int) int {
		if c := cmp.Compare(gen[i], gen[j]); c != 0 {
			return c
		}
		return cmp.Compare(msgs[i].Seq, msgs[j].Seq)
	}
	sorted := true
	for i := 1; i < len(msgs) && sorted; i++ {
		sorted = less(i-1, i) <= 0
	}
	if sorted {
		return
	}
	idx := make([]int, len(msgs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, less)
	m2, g2 := make([]domain.Message, len(msgs)), make([]int, len(gen))
	for i, j := range idx {
		m2[i], g2[i] = msgs[j], gen[j]
	}
	copy(msgs, m2)
	copy(gen, g2)
}
