package sqlite

import (
	"errors"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/msgbody"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// A bulk writer (the OpenClaw import) prepares messages off the writer
// goroutine: the body column (the message JSON, compressed) and the
// search index text depend on the message alone, and computing them on
// the single writer would make it the bottleneck. AppendPrepared then
// assigns seq and ids and runs the INSERTs, as AppendMessages does.
// TestAppendPreparedMatchesAppendMessages holds the two paths together
// (rows, bodies and index rows).

var (
	_ domain.MessagePreparer  = (*Store)(nil)
	_ domain.PreparedAppender = (*tx)(nil)
)

// prepared is this store's domain.PreparedMessages.
type prepared struct {
	s      *Store
	msgs   []domain.Message
	bodies []any    // the body column of each message (bodyArg)
	texts  []string // the search index text of each ("" none)
}

func (p *prepared) Len() int { return len(p.msgs) }

// errForeignPrepared is returned for prepared messages of another store
// (or another implementation): their bodies need not match this one's.
var errForeignPrepared = errors.New("append prepared: messages were not prepared by this store")

// PrepareMessages implements domain.MessagePreparer. It may run on any
// goroutine, several at once: it reads only what Open set up.
func (s *Store) PrepareMessages(msgs []domain.Message) (domain.PreparedMessages, error) {
	p := &prepared{s: s, msgs: msgs, bodies: make([]any, len(msgs)), texts: make([]string, len(msgs))}
	var js, z []byte
	// The compressed bodies are gathered in a pooled scratch arena and
	// copied out at once into one allocation of their exact size, cut into
	// bodies: one allocation per call instead of one per message (a tenth
	// of the bytes an import allocates). ends[i] is where body i ends in
	// the arena, -1 for a body kept plain.
	sp, _ := s.prepArenas.Get().(*[]byte)
	if sp == nil {
		sp = new([]byte)
	}
	arena := (*sp)[:0]
	ends := make([]int, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if m.Role == "" {
			return nil, domain.Invalid("prepare messages: messages[%d].role is required", i)
		}
		var err error
		if js, err = rowcodec.AppendMessageJSON(js[:0], m); err != nil {
			return nil, fmt.Errorf("prepare messages: messages[%d]: %w", i, err)
		}
		// bodyArg's value, compressed into scratch and copied to the
		// arena at its own size: the plan holds it until its group
		// commits, and Encode sizes its output for the worst case.
		if z = s.codec.Encode(z[:0], js); msgbody.IsCompressed(z) {
			arena = append(arena, z...)
			ends[i] = len(arena)
		} else {
			p.bodies[i] = string(js)
			ends[i] = -1
		}
		p.texts[i] = s.redactor.SearchText(*m)
	}
	bodies := make([]byte, len(arena))
	copy(bodies, arena)
	*sp = arena
	s.prepArenas.Put(sp)
	start := 0
	for i, end := range ends {
		if end >= 0 {
			p.bodies[i] = bodies[start:end:end]
			start = end
		}
	}
	return p, nil
}

// AppendPrepared implements domain.PreparedAppender.
func (t *tx) AppendPrepared(key, sessionID string, pm domain.PreparedMessages) ([]domain.Message, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	p, ok := pm.(*prepared)
	if !ok || p.s != t.s {
		return nil, errForeignPrepared
	}
	out, err := t.assign(key, sessionID, p.msgs)
	if err != nil || len(out) == 0 {
		return out, err
	}
	gen, err := t.insertPrepared(key, out, p)
	if err != nil {
		return nil, fmt.Errorf("append messages to %q: %w", key, err)
	}
	t.remember(key, out, gen)
	t.bulk = true
	return out, nil
}

// insertPrepared is insertMessages with the bodies and index texts of p.
func (t *tx) insertPrepared(key string, msgs []domain.Message, p *prepared) (int64, error) {
	args := t.s.insertArgs[:0]
	var g gens
	for start := 0; start < len(msgs); start += insertRowsMax {
		end := min(start+insertRowsMax, len(msgs))
		chunk := msgs[start:end]
		args = args[:0]
		arena := t.s.packBuf[:0]
		for i := range chunk {
			m := &chunk[i]
			gen, err := g.of(t, key, m.SessionID)
			if err != nil {
				return 0, fmt.Errorf("messages[%d]: %w", start+i, err)
			}
			args, arena = appendRowArgs(args, arena, gen, m, p.bodies[start+i])
		}
		t.s.packBuf = arena
		last, err := t.execRaw(t.s.insertSQL[len(chunk)], args...)
		if err != nil {
			return 0, fmt.Errorf("messages[%d:%d]: %w", start, end, err)
		}
		// As indexMessages: one INSERT's rows have consecutive rowids.
		first := last - int64(len(chunk)) + 1
		for i, text := range p.texts[start:end] {
			t.index = append(t.index, indexRow{rowid: first + int64(i), key: key, id: chunk[i].ID, text: text})
		}
	}
	clear(args) // let the bodies go
	t.s.insertArgs = args
	return g.gen, nil
}
