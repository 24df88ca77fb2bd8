package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

var (
	_ domain.TailsReader     = (*Store)(nil)
	_ domain.TailsJSONReader = (*Store)(nil)
)

// tailsSQL reads the newest ?2 messages of each generation in the JSON
// array ?1 ([[key, sessionId], ...]) whose role is not one of ?3, ?4, …
// (nRoles of them); an empty sessionId is the key's current generation,
// as in ReadMessages. cols are the message columns (of m) after the
// generation's index in ?1.
//
// The generations are unpacked once, into a materialized table (with
// their generation numbers), and the roles are bound one parameter each:
// with `value ->> 0` evaluated in the correlated subquery and the roles as
// `NOT IN (SELECT value FROM json_each(?))`, SQLite re-ran both for every
// generation, a third of the statement's CPU. For each generation the
// subquery walks the (gen, seq) index backwards from its newest seq, so a
// generation costs one index seek however long its transcript is. One
// statement per shape, prepared once, instead of one query per generation.
func tailsSQL(cols string, nRoles int) string {
	var b strings.Builder
	b.WriteString(`WITH p(i, k, sid) AS MATERIALIZED (
	SELECT key, value ->> 0, coalesce(nullif(value ->> 1, ''), (SELECT session_id FROM sessions WHERE key = value ->> 0))
	FROM json_each(?1)),
g(i, sid, gen) AS MATERIALIZED (
	SELECT p.i, p.sid, (SELECT gen FROM message_gens WHERE session_key = p.k AND session_id = p.sid) FROM p)
SELECT g.i, `)
	b.WriteString(cols)
	b.WriteString(`
FROM g JOIN messages AS m ON m.rowid IN (
	SELECT t.rowid FROM messages AS t
	WHERE t.gen = g.gen`)
	if nRoles > 0 {
		b.WriteString(` AND t.role NOT IN (`)
		for i := range nRoles {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("?" + strconv.Itoa(i+3))
		}
		b.WriteString(`)`)
	}
	b.WriteString(`
	ORDER BY t.seq DESC LIMIT +?2)`)
	return b.String()
}

// Column sets of the two tail reads: ReadTails fills a whole Message,
// ReadTailsJSON only what sessions_list shows (each column costs the
// driver a value per row).
const (
	tailsMessageCols = `m.seq, m.id, m.parent_id, g.sid, m.run_id, m.body`
	tailsJSONCols    = `m.seq, m.id, m.body`
)

// maxTailRoles bounds the excluded roles of one tails statement (each is a
// parameter and a cached statement shape).
const maxTailRoles = 16

// queryTails runs the tails statement for gens and calls row for each
// result row with the index of its generation; rows of one generation
// come in seq order when its messages were appended in order.
func (s *Store) queryTails(ctx context.Context, cols string, gens []domain.Generation, limit int, excludeRoles []string, dest []any, row func(gi int) error) error {
	if limit < 1 {
		return domain.Invalid("read tails: limit must be >= 1 (got %d)", limit)
	}
	if len(excludeRoles) > maxTailRoles {
		return domain.Invalid("read tails: at most %d excluded roles (got %d)", maxTailRoles, len(excludeRoles))
	}
	if s.closed.Load() {
		return fmt.Errorf("read tails: %w", domain.ErrClosed)
	}
	if len(gens) == 0 {
		return nil
	}
	arg := make([]byte, 0, 64*len(gens))
	arg = append(arg, '[')
	for i, g := range gens {
		if i > 0 {
			arg = append(arg, ',')
		}
		arg = append(arg, '[')
		arg = rowcodec.AppendJSONString(arg, g.Key)
		arg = append(arg, ',')
		arg = rowcodec.AppendJSONString(arg, g.SessionID)
		arg = append(arg, ']')
	}
	arg = append(arg, ']')
	args := make([]any, 0, 2+len(excludeRoles))
	args = append(args, string(arg), limit)
	for _, r := range excludeRoles {
		args = append(args, roleArg(r))
	}
	rows, err := s.queryR(ctx, tailsSQL(cols, len(excludeRoles)), args...)
	if err != nil {
		return s.readErr("read tails", err)
	}
	defer rows.Close()
	var gi int
	dest = append([]any{&gi}, dest...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return s.readErr("read tails", err)
		}
		if gi < 0 || gi >= len(gens) {
			return fmt.Errorf("read tails: generation index %d out of range", gi)
		}
		if err := row(gi); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.readErr("read tails", err)
	}
	return nil
}

// ReadTails implements domain.TailsReader.
func (s *Store) ReadTails(ctx context.Context, gens []domain.Generation, limit int, excludeRoles []string) ([][]domain.Message, error) {
	// One backing array for every tail, sized for full tails: a Message is
	// ~300 bytes, and growing 200 small slices was the listing's largest
	// allocation.
	size := min(len(gens)*max(limit, 0), 4096)
	msgs := make([]domain.Message, 0, size)
	gen := make([]int, 0, size)
	var scratch []byte
	var seq int64
	var id, parent, sid, runID string
	var body sql.RawBytes
	err := s.queryTails(ctx, tailsMessageCols, gens, limit, excludeRoles, []any{&seq, textCol{&id}, textCol{&parent}, &sid, textCol{&runID}, &body}, func(gi int) error {
		var m domain.Message
		var err error
		if scratch, err = decodeBody(s.codec, scratch, body, &m); err != nil {
			return fmt.Errorf("read tails of %q: seq %d: %w", gens[gi].Key, seq, err)
		}
		m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID = seq, id, parent, sid, runID
		msgs = append(msgs, m)
		gen = append(gen, gi)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortTails(msgs, gen, func(m domain.Message) int64 { return m.Seq })
	return splitTails(msgs, gen, len(gens)), nil
}

// ReadTailsJSON implements domain.TailsJSONReader. Every message's JSON
// is decompressed into one shared buffer, each a slice of it, behind its
// id: `{"id":"…"` is written first and the body's opening brace becomes
// the comma, so nothing is copied twice.
func (s *Store) ReadTailsJSON(ctx context.Context, gens []domain.Generation, limit int, excludeRoles []string) ([][]domain.StoredMessage, error) {
	size := min(len(gens)*max(limit, 0), 4096)
	msgs := make([]domain.StoredMessage, 0, size)
	gen := make([]int, 0, size)
	// ~130 bytes of JSON and id per short message; the buffer grows by
	// doubling past that, earlier messages keeping the old array.
	buf := make([]byte, 0, 160*size)
	// Packed ids are hex-encoded into ids and made one string at the end,
	// each message's ID a substring of it: one allocation per call
	// instead of one per message.
	var ids []byte
	type idSpan struct{ msg, from, to int }
	var spans []idSpan
	var seq int64
	var idv any
	var body sql.RawBytes
	err := s.queryTails(ctx, tailsJSONCols, gens, limit, excludeRoles, []any{&seq, rawCol{&idv}, &body}, func(gi int) error {
		start := len(buf)
		buf = append(buf, `{"id":`...)
		id, hexLen, err := "", 0, error(nil)
		if buf, id, hexLen, err = appendIDCol(buf, idv); err != nil {
			return s.readErr("read tails", err)
		}
		if hexLen > 0 {
			spans = append(spans, idSpan{len(msgs), len(ids), len(ids) + hexLen})
			ids = append(ids, buf[len(buf)-1-hexLen:len(buf)-1]...)
		}
		at := len(buf)
		if buf, err = s.codec.Decode(buf, body); err != nil {
			return fmt.Errorf("read tails of %q: seq %d: %w", gens[gi].Key, seq, err)
		}
		switch js := buf[at:]; {
		case len(js) < 2 || js[0] != '{' || js[len(js)-1] != '}':
			return fmt.Errorf("read tails of %q: seq %d: stored body is not a JSON object", gens[gi].Key, seq)
		case len(js) == 2: // {}
			buf = append(buf[:at], '}')
		default:
			js[0] = ','
		}
		msgs = append(msgs, domain.StoredMessage{Seq: seq, ID: id, JSON: buf[start:len(buf):len(buf)]})
		gen = append(gen, gi)
		return nil
	})
	if err != nil {
		return nil, err
	}
	all := string(ids)
	for _, sp := range spans {
		msgs[sp.msg].ID = all[sp.from:sp.to]
	}
	sortTails(msgs, gen, func(m domain.StoredMessage) int64 { return m.Seq })
	return splitTails(msgs, gen, len(gens)), nil
}

// rawCol scans a column's value as the driver returns it, without the
// copy database/sql makes of a []byte for an *any.
type rawCol struct{ p *any }

func (c rawCol) Scan(src any) error {
	*c.p = src
	return nil
}

// appendIDCol appends the packed id column value v (textCol's forms) to b
// as a JSON string, without allocating: a TEXT id is returned as id, a
// packed id is hex-encoded straight into b and hexLen is its length (the
// id is then b[len(b)-1-hexLen : len(b)-1], before the closing quote).
func appendIDCol(b []byte, v any) (_ []byte, id string, hexLen int, _ error) {
	switch v := v.(type) {
	case string:
		return rowcodec.AppendJSONString(b, v), v, 0, nil
	case nil:
		return rowcodec.AppendJSONString(b, ""), "", 0, nil
	case []byte:
		if len(v) != 4 && len(v) != 16 {
			return b, "", 0, fmt.Errorf("corrupt packed id: %d bytes", len(v))
		}
		const digits = "0123456789abcdef"
		b = append(b, '"')
		at := len(b)
		for i, c := range v {
			if len(v) == 16 && (i == 4 || i == 6 || i == 8 || i == 10) {
				b = append(b, '-')
			}
			b = append(b, digits[c>>4], digits[c&15])
		}
		n := len(b) - at
		return append(b, '"'), "", n, nil
	}
	return b, "", 0, fmt.Errorf("corrupt id column: %T", v)
}

// splitTails cuts msgs, grouped by generation index (gen, beside them),
// into one tail per generation.
func splitTails[M any](msgs []M, gen []int, n int) [][]M {
	out := make([][]M, n)
	for i, start := 0, 0; i < n; i++ {
		end := start
		for end < len(gen) && gen[end] == i {
			end++
		}
		// A full slice expression: appending to one tail never writes
		// into the next.
		out[i] = msgs[start:end:end]
		start = end
	}
	return out
}

// sortTails orders msgs (and gen beside them) by generation, then seq.
// SQLite returns them grouped by generation in rowid order, which is seq
// order for appended messages, so this is usually one check.
func sortTails[M any](msgs []M, gen []int, seqOf func(M) int64) {
	less := func(i, j int) int {
		if c := cmp.Compare(gen[i], gen[j]); c != 0 {
			return c
		}
		return cmp.Compare(seqOf(msgs[i]), seqOf(msgs[j]))
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
	m2, g2 := make([]M, len(msgs)), make([]int, len(gen))
	for i, j := range idx {
		m2[i], g2[i] = msgs[j], gen[j]
	}
	copy(msgs, m2)
	copy(gen, g2)
}
