package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// toV7Layout rewrites the messages of the store at path (closed) back to
// the layout of schema version 7 (a TEXT key, session id and ids in every
// row, the (session_key, seq) index) with the same rowids, and marks the
// store version 7: the store a binary of that version would have left.
func toV7Layout(t *testing.T, path string) {
	t.Helper()
	rawExec(t, path, `
CREATE TABLE messages_v7 (
	session_key TEXT NOT NULL,
	seq         INTEGER NOT NULL,
	session_id  TEXT NOT NULL,
	id          TEXT NOT NULL,
	parent_id   TEXT NOT NULL,
	role        TEXT NOT NULL,
	run_id      TEXT NOT NULL,
	timestamp   INTEGER NOT NULL,
	body        TEXT NOT NULL,
	UNIQUE (session_key, seq)
);
INSERT INTO messages_v7 (rowid, session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body)
SELECT m.rowid, g.session_key, m.seq, g.session_id, `+unpackedTextSQL("m.id")+`, `+unpackedTextSQL("m.parent_id")+`,
	CASE m.role WHEN 0 THEN 'user' WHEN 1 THEN 'assistant' WHEN 2 THEN 'toolResult' ELSE m.role END,
	`+unpackedTextSQL("m.run_id")+`, m.timestamp, m.body
FROM messages AS m JOIN message_gens AS g ON g.gen = m.gen;
DROP TABLE messages;
DROP TABLE message_gens;
ALTER TABLE messages_v7 RENAME TO messages;
PRAGMA user_version = 7;`)
}

// v7Row is one message row as schema version 7 stored it.
type v7Row struct {
	Key, SID, ID, Parent, Role, Run string
	Seq, Timestamp                  int64
}

// TestMigrateToV8 upgrades a version 7 store whose rows hold every kind of
// id, run id and role, and checks that every reader returns what it held,
// that the search index (keyed by rowid) still finds each message, and
// that appends, paging by id and deletes work on the upgraded rows.
func TestMigrateToV8(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st := openAt(t, path)
	sess := func(key, sid string) {
		if err := st.Update(ctx, func(tx domain.Tx) error {
			return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1})
		}); err != nil {
			t.Fatal(err)
		}
	}
	sess("agent:main:a", "sid-a2")
	sess("agent:main:b", "0b3e3f4c-1d2e-4f50-8a6b-7c8d9e0f1a2b")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	toV7Layout(t, path)
	const uuidRun = "9f1c2b3a-4d5e-4f60-8172-93a4b5c6d7e8"
	rows := []v7Row{
		// key a: an old generation, then the current one; ids of every form.
		{"agent:main:a", "sid-a1", "deadbeef", "", "user", "", 1, 100},
		{"agent:main:a", "sid-a1", "DEADBEF0", "deadbeef", "assistant", uuidRun, 2, 101},
		{"agent:main:a", "sid-a2", "0000000a", "", "toolResult", strings.ToUpper(uuidRun), 3, 102},
		{"agent:main:a", "sid-a2", "msg-7", "0000000a", "5", "run-1", 4, 103},
		{"agent:main:a", "sid-a2", "abcdef0", "msg-7", "system", "abcdef01", 5, 104},
		{"agent:main:a", "sid-a2", "ffffffff", "abcdef0", "assistant", "{" + uuidRun[1:], 6, 105},
		// key b: a UUID session id.
		{"agent:main:b", "0b3e3f4c-1d2e-4f50-8a6b-7c8d9e0f1a2b", "12345678", "", "user", uuidRun, 1, 200},
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		body := fmt.Sprintf(`{"role":%q,"content":"word%d zebra","timestamp":%d}`, r.Role, i, r.Timestamp)
		if _, err := db.ExecContext(ctx, `INSERT INTO messages (session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.Key, r.Seq, r.SID, r.ID, r.Parent, r.Role, r.Run, r.Timestamp, body); err != nil {
			t.Fatal(err)
		}
	}
	// Index them, as version 7 would have by the first search.
	st7rowids := map[string]int64{}
	q, err := db.QueryContext(ctx, `SELECT rowid, session_key, id FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	for q.Next() {
		var rowid int64
		var k, id string
		if err := q.Scan(&rowid, &k, &id); err != nil {
			t.Fatal(err)
		}
		st7rowids[k+" "+id] = rowid
	}
	q.Close()
	for i, r := range rows {
		if _, err := db.ExecContext(ctx, `INSERT INTO messages_fts (rowid, text, scope) VALUES (?, ?, ?)`,
			st7rowids[r.Key+" "+r.ID], fmt.Sprintf("word%d zebra", i), keyToken(r.Key)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `UPDATE search_index_state SET upto = (SELECT max(rowid) FROM messages)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	st = openAt(t, path)
	var version int
	if err := st.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil || version != SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", version, err, SchemaVersion)
	}
	// The rowids survived.
	for i, r := range rows {
		var rowid int64
		if err := st.rdb.QueryRowContext(ctx, `SELECT m.rowid FROM messages m JOIN message_gens g ON g.gen = m.gen
			WHERE g.session_key = ? AND m.seq = ?`, r.Key, r.Seq).Scan(&rowid); err != nil || rowid != st7rowids[r.Key+" "+r.ID] {
			t.Errorf("row %d: rowid %d, %v; want %d", i, rowid, err, st7rowids[r.Key+" "+r.ID])
		}
	}
	// Ids that pack are stored packed.
	var blobs int
	if err := st.rdb.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE typeof(id) = 'blob'`).Scan(&blobs); err != nil || blobs != 4 {
		t.Errorf("%d packed ids, %v; want 4 (deadbeef, 0000000a, ffffffff, 12345678)", blobs, err)
	}

	check := func(m domain.Message, r v7Row) {
		t.Helper()
		got := v7Row{Key: r.Key, SID: m.SessionID, ID: m.ID, Parent: m.ParentID, Role: m.Role, Run: m.RunID, Seq: m.Seq, Timestamp: r.Timestamp}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("seq %d (-v7 +v8):\n%s", r.Seq, diff)
		}
	}
	for _, gen := range []struct {
		key, sid string
		rows     []v7Row
	}{{"agent:main:a", "sid-a1", rows[:2]}, {"agent:main:a", "", rows[2:6]}, {"agent:main:b", "", rows[6:]}} {
		got, err := st.ReadMessages(ctx, gen.key, domain.MessageQuery{SessionID: gen.sid})
		if err != nil || len(got) != len(gen.rows) {
			t.Fatalf("ReadMessages(%s, %q) = %d, %v", gen.key, gen.sid, len(got), err)
		}
		for i := range got {
			check(got[i], gen.rows[i])
		}
		tails, err := st.ReadTails(ctx, []domain.Generation{{Key: gen.key, SessionID: gen.sid}}, 10, nil)
		if err != nil || len(tails) != 1 || len(tails[0]) != len(gen.rows) {
			t.Fatalf("ReadTails(%s, %q) = %v, %v", gen.key, gen.sid, tails, err)
		}
		for i := range tails[0] {
			check(tails[0][i], gen.rows[i])
		}
	}
	// Roles filter in their stored form, known or not.
	got, err := st.ReadMessages(ctx, "agent:main:a", domain.MessageQuery{ExcludeRoles: []string{"toolResult", "5"}})
	if err != nil || len(got) != 2 || got[0].ID != "abcdef0" {
		t.Errorf("excluding toolResult and 5: %+v, %v", got, err)
	}
	// Paging by id: packed, text, and the upper-case one kept as text.
	for id, want := range map[string]int64{"ffffffff": 6, "msg-7": 4, "abcdef0": 5} {
		got, err := st.ReadMessages(ctx, "agent:main:a", domain.MessageQuery{BeforeID: id})
		if err != nil || len(got) == 0 || got[len(got)-1].Seq != want-1 {
			t.Errorf("before %s: %+v, %v", id, got, err)
		}
	}
	if got, err := st.ReadMessages(ctx, "agent:main:a", domain.MessageQuery{SessionID: "sid-a1", BeforeID: "DEADBEF0"}); err != nil || len(got) != 1 {
		t.Errorf("before DEADBEF0: %+v, %v", got, err)
	}
	// The old search index still points at the right rows, with nothing
	// left to index.
	if upto, newest := indexState(t, st); upto != newest {
		t.Errorf("after upgrade: upto %d, newest %d", upto, newest)
	}
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"word5"}, Limit: 10})
	if err != nil || len(hits) != 1 || hits[0].MessageID != "ffffffff" || hits[0].Role != "assistant" || hits[0].SessionID != "sid-a2" {
		t.Errorf("search word5: %+v, %v", hits, err)
	}
	// An append continues the key's seqs and the generation's ids.
	appended, err := appendOne(ctx, st, "agent:main:a", "sid-a2", nil)
	if err != nil || appended.Seq != 7 || appended.ParentID != "ffffffff" {
		t.Errorf("append after upgrade: seq %d parent %q, %v", appended.Seq, appended.ParentID, err)
	}
	appended, err = appendOne(ctx, st, "agent:main:a", "sid-a1", nil)
	if err != nil || appended.Seq != 8 || appended.ParentID != "DEADBEF0" {
		t.Errorf("append to the old generation: seq %d parent %q, %v", appended.Seq, appended.ParentID, err)
	}
	// Scan (migrate, export) walks keys, then seqs across generations.
	scanned, err := st.ScanMessages(ctx, "", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range scanned {
		order = append(order, fmt.Sprintf("%s/%d", m.SessionKey[len("agent:main:"):], m.Seq))
	}
	if want := []string{"a/1", "a/2", "a/3", "a/4", "a/5", "a/6", "a/7", "a/8", "b/1"}; !slices.Equal(order, want) {
		t.Errorf("scan order %v, want %v", order, want)
	}
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.DeleteSession("agent:main:a") }); err != nil {
		t.Fatal(err)
	}
	var left, gens int
	if err := st.rdb.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages), (SELECT count(*) FROM message_gens)`).Scan(&left, &gens); err != nil || left != 1 || gens != 1 {
		t.Errorf("after delete: %d messages, %d generations, %v; want 1, 1", left, gens, err)
	}
}

// TestPackedColumnsMatchSQL: the migration's SQL packs ids and roles
// exactly as the writer does, and unpackedTextSQL undoes it.
func TestPackedColumnsMatchSQL(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{"", "deadbeef", "DEADBEEF", "deadbee", "deadbeef0", "0000000g", "ééééé", "run-1",
		"9f1c2b3a-4d5e-4f60-8172-93a4b5c6d7e8", "9F1C2B3A-4D5E-4F60-8172-93A4B5C6D7E8", "9f1c2b3a-4d5e-4f60-8172-93a4b5c6d7e", "9f1c2b3a04d5e-4f60-8172-93a4b5c6d7e8",
		"urn:uuid:9f1c2b3a-4d5e-4f60-8172-93a4b5c6d7e8", "{9f1c2b3a-4d5e-4f60-8172-93a4b5c6d7e8}", "9f1c2b3a4d5e4f60817293a4b5c6d7e8"} {
		var sqlForm any
		if err := db.QueryRowContext(t.Context(), `SELECT `+packedTextSQL("?1"), s).Scan(&sqlForm); err != nil {
			t.Fatal(err)
		}
		goForm := packedArg(s)
		if b, ok := sqlForm.([]byte); ok {
			sqlForm = string(b)
		}
		if b, ok := goForm.([]byte); ok {
			goForm = string(b)
		}
		if sqlForm != goForm {
			t.Errorf("%q: SQL packs to %q, Go to %q", s, sqlForm, goForm)
		}
		var back, scanned string
		if err := db.QueryRowContext(t.Context(), `SELECT `+unpackedTextSQL("?1")+`, ?1`, packedArg(s)).Scan(&back, textCol{&scanned}); err != nil || back != s || scanned != s {
			t.Errorf("%q: unpacked in SQL to %q, scanned to %q, %v", s, back, scanned, err)
		}
	}
	for _, r := range []string{"user", "assistant", "toolResult", "system", "5", "0", ""} {
		var sqlForm any
		if err := db.QueryRowContext(t.Context(), `SELECT `+roleSQL("?1"), r).Scan(&sqlForm); err != nil {
			t.Fatal(err)
		}
		if sqlForm != roleArg(r) {
			t.Errorf("role %q: SQL %#v, Go %#v", r, sqlForm, roleArg(r))
		}
		var back string
		if err := db.QueryRowContext(t.Context(), `SELECT ?`, roleArg(r)).Scan(roleCol{&back}); err != nil || back != r {
			t.Errorf("role %q scanned back as %q, %v", r, back, err)
		}
	}
	// A corrupt stored value is an error, never a wrong id.
	var s string
	if err := (textCol{&s}).Scan([]byte{1, 2, 3}); err == nil {
		t.Error("a 3-byte packed id scanned without an error")
	}
	if err := (roleCol{&s}).Scan(int64(7)); err == nil {
		t.Error("role code 7 scanned without an error")
	}
}

// TestVacuumKeepsSearchIndex: the messages' rowid is a declared INTEGER
// PRIMARY KEY since version 8, so a VACUUM (which may renumber other
// rowids) keeps every message where the search index points.
func TestVacuumKeepsSearchIndex(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st := openAt(t, path)
	var pk int
	if err := st.rdb.QueryRowContext(ctx, `SELECT pk FROM pragma_table_info('messages') WHERE name = 'mid' AND type = 'INTEGER'`).Scan(&pk); err != nil || pk != 1 {
		t.Fatalf("messages.mid: pk %d, %v; want the INTEGER PRIMARY KEY", pk, err)
	}
	appendText(t, st, "agent:main:a", "alpha one", "alpha two")
	appendText(t, st, "agent:main:b", "beta one", "beta two")
	appendText(t, st, "agent:main:c", "gamma one", "gamma two")
	if got := searchKeys(t, st, "one"); len(got) != 3 {
		t.Fatalf("before: %v", got)
	}
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.DeleteSession("agent:main:a") }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rawExec(t, path, `VACUUM`)
	st = openAt(t, path)
	for word, want := range map[string][]string{"gamma": {"agent:main:c", "agent:main:c"}, "beta": {"agent:main:b", "agent:main:b"}, "alpha": nil} {
		if got := searchKeys(t, st, word); !slices.Equal(got, want) {
			t.Errorf("after VACUUM, %q found in %v; want %v", word, got, want)
		}
	}
}

// TestCorruptPackedColumns: a packed id of a length no packing writes, or
// an unknown role code, is an error from every reader, never a panic or a
// wrong id.
func TestCorruptPackedColumns(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct{ name, set string }{
		{"id", `UPDATE messages SET id = x'010203'`},
		{"run id", `UPDATE messages SET run_id = x'0102030405'`},
		{"role", `UPDATE messages SET role = 9`},
		{"id type", `UPDATE messages SET id = 1.5`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "switchboard.db")
			st := openAt(t, path)
			appendText(t, st, "agent:main:other", "other words")
			searchKeys(t, st, "other")
			// Left in the search index's tail: the next search indexes it.
			appendText(t, st, "agent:main:main", "hello corrupt world")
			if upto, newest := indexState(t, st); upto == newest {
				t.Fatalf("upto %d: nothing left to index", upto)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			rawExec(t, path, tc.set+` WHERE gen = (SELECT gen FROM message_gens WHERE session_key = 'agent:main:main')`)
			st = openAt(t, path)
			// One bad row does not stop searches that do not return it.
			if got := searchKeys(t, st, "other"); !slices.Equal(got, []string{"agent:main:other"}) {
				t.Errorf("search of another session: %v", got)
			}
			_, errRead := st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{})
			_, errTails := st.ReadTailsJSON(ctx, []domain.Generation{{Key: "agent:main:main"}}, 5, nil)
			_, errScan := st.ScanMessages(ctx, "", 0, 10)
			_, errSearch := searchHits(ctx, st, domain.MessageSearch{Words: []string{"corrupt"}, Limit: 10})
			errs := []error{errRead, errTails, errScan, errSearch}
			if tc.name == "role" {
				// Only search reads the role column.
				errs = []error{errSearch}
			}
			if tc.name == "run id" {
				// Only full messages carry the run id.
				errs = []error{errRead, errScan}
			}
			for i, err := range errs {
				if err == nil || !strings.Contains(err.Error(), "corrupt") {
					t.Errorf("reader %d: %v; want a corrupt-column error", i, err)
				}
			}
		})
	}
}
