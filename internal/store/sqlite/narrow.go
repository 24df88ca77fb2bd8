package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
)

// Schema version 8 narrows the message row, which had become most of a
// message's bytes on disk once bodies were compressed (schema version 6):
// each row repeated its session key (TEXT, ~30 bytes) and session id (a
// 36-character UUID), its run id as a 36-character UUID and its entry
// ids as 8 hex characters, and the (session_key, seq) index repeated the
// key once more.
//
//   - message_gens numbers the generations, (session_key, session_id)
//     pairs, once each; a message row holds its generation's number, gen.
//   - The one index is (gen, seq): a history read seeks its generation and
//     walks it backwards, never stepping over another generation's rows.
//     Seqs are still unique per key: the writer assigns them (lastMessage
//     finds the key's newest over its generations).
//   - ids, parent ids and run ids are packed (msgcols.go): 4 bytes for 8
//     hex digits, 16 for a UUID; roles are small integers.
//
// The migration copies every row into the new table with its rowid, so
// the search index (keyed by message rowid, search.go) and
// search_index_state.upto stay valid without being rebuilt. The rowid is
// now a declared column, mid (INTEGER PRIMARY KEY, stored as the rowid
// itself: one byte of row header), so a VACUUM keeps it too.
func schemaV8() string {
	return `
CREATE TABLE message_gens (
	gen         INTEGER PRIMARY KEY,
	session_key TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	UNIQUE (session_key, session_id)
);
-- Numbered in order of first appearance. Not SELECT DISTINCT: that sorted
-- every row in memory (temp_store is MEMORY), 143 MB at 600,000 messages.
INSERT OR IGNORE INTO message_gens (session_key, session_id)
	SELECT session_key, session_id FROM messages ORDER BY rowid;
-- id, parent_id, role and run_id have no type, so no affinity converts
-- what packText and roleArg chose (msgcols.go). body holds TEXT (plain
-- JSON) or a BLOB (compressed, body.go).
CREATE TABLE messages_v8 (
	mid       INTEGER PRIMARY KEY,
	gen       INTEGER NOT NULL,
	seq       INTEGER NOT NULL,
	id        NOT NULL,
	parent_id NOT NULL,
	role      NOT NULL,
	run_id    NOT NULL,
	timestamp INTEGER NOT NULL,
	body      TEXT NOT NULL
);
-- Before the copy, so it grows as rows arrive (mostly in (gen, seq) order)
-- instead of being sorted afterwards in memory.
CREATE UNIQUE INDEX messages_gen_seq ON messages_v8 (gen, seq);
INSERT INTO messages_v8 (mid, gen, seq, id, parent_id, role, run_id, timestamp, body)
SELECT m.rowid, g.gen, m.seq, ` + packedTextSQL("m.id") + `, ` + packedTextSQL("m.parent_id") + `,
	` + roleSQL("m.role") + `, ` + packedTextSQL("m.run_id") + `, m.timestamp, m.body
FROM messages AS m JOIN message_gens AS g ON g.session_key = m.session_key AND g.session_id = m.session_id
ORDER BY m.rowid;
DROP TABLE messages;
ALTER TABLE messages_v8 RENAME TO messages;
`
}

// genSQL is the generation number of (key ?, session id ?).
const genSQL = `SELECT gen FROM message_gens WHERE session_key = ? AND session_id = ?`

// genOf returns the generation number of (key, sid), creating it when it
// has none yet.
func (t *tx) genOf(key, sid string) (int64, error) {
	if m, ok := t.s.cache.last[key]; ok && m.gen != 0 && m.sid == sid {
		return m.gen, nil
	}
	var gen int64
	err := t.queryRow(genSQL, key, sid).Scan(&gen)
	if err == nil {
		return gen, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("generation: %w", err)
	}
	res, err := t.exec(`INSERT INTO message_gens (session_key, session_id) VALUES (?, ?)`, key, sid)
	if err != nil {
		return 0, fmt.Errorf("new generation: %w", err)
	}
	return res.LastInsertId()
}
