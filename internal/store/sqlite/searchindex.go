package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Schema version 7: the search index lags the messages and search catches
// it up before it reads.
//
// Until version 6 every commit that appended a message also wrote its
// index row, and FTS5 turns each commit into a new index segment: a leaf
// page, an %_idx row, its structure and averages records, a docsize row
// and, every sixteenth commit, a merge. For a chat turn's two small
// commits that was a quarter to a third of the turn (docs/benchmarks.md).
//
// Now an append writes no index row. search_index_state.upto is the
// largest message rowid up to which every message is indexed; the
// messages above it are the tail. The tail is indexed by one transaction,
// catchUpIndex, which indexes every message above upto and moves upto to
// the newest. It runs
//   - before every search whose store has a tail (indexTail), through the
//     writer like any Update, so a search never misses a message whose
//     append was acknowledged before the search began: that message has a
//     rowid at most the newest one indexTail sees, and the catch-up indexes
//     up to at least that one;
//   - by the writer after a batch once indexLagMax messages are waiting,
//     so the tail (and what a search may have to index first) stays short
//     and an import's messages reach FTS5 in segments of hundreds.
//
// New rows always get a rowid above every stored one (SQLite gives
// max(rowid)+1; the store never sets a rowid), so they land in the tail.
// Deleting the newest messages lowers that maximum, and the next appends
// reuse the freed rowids: DeleteSession therefore lowers upto to the
// largest rowid left, so a reused rowid is in the tail too. upto and the
// index rows commit in one transaction, so a crash leaves a longer tail,
// never a gap.
const schemaV7 = `
CREATE TABLE IF NOT EXISTS search_index_state (upto INTEGER NOT NULL);
-- Every message of a version 6 store is indexed (AppendMessages wrote its row).
INSERT INTO search_index_state (upto) SELECT COALESCE(max(rowid), 0) FROM messages
	WHERE NOT EXISTS (SELECT 1 FROM search_index_state);
`

// indexLagMax is how many appended messages the writer lets wait before it
// indexes them on its own: a search indexes at most about this many first
// (a few milliseconds), and a chat turn pays for its messages' index rows
// in a transaction of hundreds instead of in its own commits.
const indexLagMax = 512

// deleteIndexedSQL removes the index rows of a key's messages (before the
// messages themselves go). Rows in the tail have none, which FTS5's
// contentless_delete ignores.
const deleteIndexedSQL = `DELETE FROM messages_fts WHERE rowid IN (SELECT rowid FROM messages WHERE gen IN (SELECT gen FROM message_gens WHERE session_key = ?))`

// lowerIndexedSQL keeps upto at or below the largest stored rowid after a
// delete, so the rowids the delete freed are in the tail when reused.
const lowerIndexedSQL = `UPDATE search_index_state SET upto = min(upto, (SELECT COALESCE(max(rowid), 0) FROM messages))`

// indexRowSQL inserts one search index row. Rows are inserted one per
// statement on purpose: a statement that writes several rows into a
// virtual table opens a statement savepoint, and FTS5 writes its pending
// terms out as a new segment at every savepoint; one row per statement
// leaves every row of the catch-up in FTS5's memory until COMMIT writes
// one segment.
const indexRowSQL = `INSERT INTO messages_fts (rowid, text, scope) VALUES (?, ?, ?)`

// indexRow is one message's index text, kept by the writer from its
// append until the catch-up that indexes it, so the catch-up need not
// read and decode the message again. The catch-up uses it only for the row
// with the same rowid, key and id.
type indexRow struct {
	rowid         int64
	key, id, text string
}

// indexMessages remembers the index text of chunk, which the INSERT whose
// last insert rowid is last has just stored. One INSERT of several rows
// gives them consecutive rowids (each new row gets the table's largest
// rowid plus one), so the last insert rowid names them all. Messages with
// no text are remembered too (with none), so the catch-up knows not to
// read them.
func (t *tx) indexMessages(last int64, key string, chunk []domain.Message) {
	first := last - int64(len(chunk)) + 1
	for i := range chunk {
		t.index = append(t.index, indexRow{rowid: first + int64(i), key: key, id: chunk[i].ID, text: t.s.redactor.SearchText(chunk[i])})
	}
}

// dropKey removes the rows of key (its messages were deleted).
func dropKey(rows []indexRow, key string) []indexRow {
	return slices.DeleteFunc(rows, func(r indexRow) bool { return r.key == key })
}

// keepIndex takes the index texts of a fn that succeeded into the batch:
// the texts of keys it deleted go first, then its own join.
func (s *Store) keepIndex(t *tx) {
	for _, k := range t.deleted {
		s.pendingIndex = dropKey(s.pendingIndex, k)
		s.unindexed = dropKey(s.unindexed, k)
	}
	s.pendingIndex = append(s.pendingIndex, t.index...)
	s.noteLag(t)
}

// committedIndex moves the batch's index texts to the tail's once the
// batch has committed; texts of a batch that did not commit are dropped
// (runBatch clears pendingIndex before each batch).
func (s *Store) committedIndex() {
	s.unindexed = append(s.unindexed, s.pendingIndex...)
	s.pendingIndex = s.pendingIndex[:0]
	if s.pendingLag != 0 {
		s.lag = s.pendingLag
	}
}

// indexTail makes sure every committed message is indexed before a search
// reads: when messages lie above upto it runs catchUpIndex through the
// writer and waits for its commit.
func (s *Store) indexTail(ctx context.Context) error {
	var upto, newest int64
	err := s.pointRowR(ctx, `SELECT (SELECT upto FROM search_index_state), (SELECT COALESCE(max(rowid), 0) FROM messages)`).Scan(&upto, &newest)
	if err != nil {
		return s.readErr("search index", err)
	}
	if newest <= upto {
		return nil
	}
	if err := s.Update(ctx, func(dt domain.Tx) error { return dt.(*tx).catchUpIndex() }); err != nil {
		return fmt.Errorf("search index: catch up: %w", err)
	}
	return nil
}

// catchUpWriter is the writer's own catch-up, after a batch that left at
// least indexLagMax messages waiting. A failure leaves the tail for the
// next catch-up (a search's waits for it and reports its error).
func (s *Store) catchUpWriter() {
	if len(s.unindexed) < s.indexLag() {
		return
	}
	req := &request{fn: func(dt domain.Tx) error { return dt.(*tx).catchUpIndex() }, done: make(chan outcome, 1)}
	s.runBatch([]*request{req})
	<-req.done
}

// catchUpIndex indexes every message above upto, in this transaction,
// and moves upto to the newest. A message whose body cannot be decoded
// gets no index row: history cannot show it either, and one bad row must
// not stop every search.
func (t *tx) catchUpIndex() error {
	if err := t.check(); err != nil {
		return err
	}
	var upto, newest int64
	if err := t.queryRow(`SELECT (SELECT upto FROM search_index_state), (SELECT COALESCE(max(rowid), 0) FROM messages)`).Scan(&upto, &newest); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	if newest <= upto {
		return nil
	}
	rows := t.rememberedTail(upto, newest)
	if rows == nil {
		var err error
		if rows, err = t.readTail(upto); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
	}
	if err := t.insertIndexRows(rows); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	if _, err := t.exec(`UPDATE search_index_state SET upto = ?`, newest); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	// Every remembered text was of a message in the tail just indexed.
	t.s.unindexed = t.s.unindexed[:0]
	t.s.pendingIndex = t.s.pendingIndex[:0]
	return nil
}

// insertIndexRows inserts the index rows of rows that have a text, one
// per statement (indexRowSQL), on the driver connection (rawexec.go).
func (t *tx) insertIndexRows(rows []indexRow) error {
	if t.s.writeFailed != nil {
		return t.s.writeFailed
	}
	err := t.s.withDriver(func(rc rawConn) error {
		var token, tokenKey string
		for _, r := range rows {
			if r.text == "" {
				continue
			}
			if r.key != tokenKey || token == "" {
				token, tokenKey = scopeOf(r.key), r.key
			}
			if _, err := rc.exec(indexRowSQL, r.rowid, r.text, token); err != nil {
				return err
			}
		}
		return nil
	})
	return t.noteWrite(err)
}

// rememberedTail returns the writer's remembered texts when they are
// exactly the messages upto+1 … newest, else nil. Rows only enter the
// tail through this writer's appends (another process's commit clears
// the memory, checkDataVersion) and leave it through DeleteSession, which
// drops them from memory too; rowids of one process's appends ascend
// (each is the largest plus one). So a run of consecutive rowids that
// fills the range is the tail, and the table need not be read.
func (t *tx) rememberedTail(upto, newest int64) []indexRow {
	n := int64(len(t.s.unindexed) + len(t.s.pendingIndex))
	if n != newest-upto {
		return nil
	}
	rows := t.s.unindexed
	if len(t.s.pendingIndex) > 0 {
		rows = append(slices.Clip(rows), t.s.pendingIndex...)
	}
	for i := range rows {
		if rows[i].rowid != upto+1+int64(i) {
			return nil
		}
	}
	return rows
}

// readTail reads the messages above upto, oldest first, with their index
// texts: remembered ones where the writer has them for exactly that
// message (same rowid, key and id), else decoded from the table.
func (t *tx) readTail(upto int64) ([]indexRow, error) {
	tail, err := t.tail(upto)
	if err != nil {
		return nil, err
	}
	known := make(map[int64]indexRow, len(t.s.unindexed)+len(t.s.pendingIndex))
	for _, r := range t.s.unindexed {
		known[r.rowid] = r
	}
	for _, r := range t.s.pendingIndex {
		known[r.rowid] = r
	}
	var scratch []byte
	for i, r := range tail {
		if c, ok := known[r.rowid]; ok && c.key == r.key && c.id == r.id {
			tail[i].text = c.text
			continue
		}
		var body []byte
		if err := t.queryRow(`SELECT body FROM messages WHERE rowid = ?`, r.rowid).Scan(&body); err != nil {
			return nil, fmt.Errorf("message rowid %d: %w", r.rowid, err)
		}
		var m domain.Message
		if scratch, err = decodeBody(t.s.codec, scratch, body, &m); err != nil {
			continue
		}
		tail[i].text = t.s.redactor.SearchText(m)
	}
	return tail, nil
}

// tail lists the messages above upto, oldest first.
func (t *tx) tail(upto int64) ([]indexRow, error) {
	st, err := t.s.stmt(t.ctx, `SELECT m.rowid, g.session_key, m.id FROM messages AS m JOIN message_gens AS g ON g.gen = m.gen
		WHERE m.rowid > ? ORDER BY m.rowid`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(t.ctx, upto)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []indexRow
	for rows.Next() {
		var r indexRow
		if err := rows.Scan(&r.rowid, &r.key, laxTextCol{&r.id}); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}

var _ domain.SearchIndexer = (*Store)(nil)

// IndexPending implements domain.SearchIndexer: it is the catch-up a
// search runs first, run on demand.
func (s *Store) IndexPending(ctx context.Context) error {
	return s.indexTail(ctx)
}
