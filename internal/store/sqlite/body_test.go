package sqlite

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// TestBodiesCompressedAndOldRowsRead: new rows store a compressed BLOB
// smaller than their JSON; a store from before schema version 6 (plain
// JSON TEXT bodies) upgrades without a rewrite, and its old rows read,
// scan and search exactly as the compressed ones do, side by side in one
// transcript.
func TestBodiesCompressedAndOldRowsRead(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const key, sid = "agent:main:main", "s1"
	long := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 20)
	in := []domain.Message{
		{Role: domain.RoleUser, Content: domain.TextContent("needle one " + long), Timestamp: 1},
		{Role: domain.RoleAssistant, Content: domain.BlockContent(domain.TextBlock("needle two"), domain.Block{Type: domain.BlockToolCall, ID: "call_1", Name: "exec", Arguments: []byte(`{"cmd":"ls"}`)}),
			Timestamp: 2, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", Usage: &domain.Usage{Input: 10, Output: 2, TotalTokens: 12, Cost: &domain.Cost{}}, StopReason: "toolUse"},
		{Role: domain.RoleToolResult, Content: domain.BlockContent(domain.TextBlock("needle three")), Timestamp: 3, ToolCallID: "call_1", ToolName: "exec", IsError: domain.Bool(false), Details: []byte(`{"exitCode":0}`)},
		{Role: domain.RoleUser, Content: domain.TextContent("needle four ünïcödé \u2028 <&>"), Timestamp: 4},
	}
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1}); err != nil {
			return err
		}
		_, err := tx.AppendMessages(key, sid, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
	if err != nil || len(want) != len(in) {
		t.Fatalf("read = %d messages, %v", len(want), err)
	}
	for i := range in {
		if diff := cmp.Diff(in[i].Content.Text(), want[i].Content.Text()); diff != "" {
			t.Errorf("message %d text (-in +read):\n%s", i, diff)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var blobs int
	var stored, plain int64
	rows, err := db.QueryContext(ctx, `SELECT typeof(body), length(body), seq FROM messages ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var typ string
		var n, seq int64
		if err := rows.Scan(&typ, &n, &seq); err != nil {
			t.Fatal(err)
		}
		js, err := rowcodec.AppendMessageJSON(nil, &want[seq-1])
		if err != nil {
			t.Fatal(err)
		}
		if typ == "blob" {
			blobs++
			if n >= int64(len(js)) {
				t.Errorf("seq %d: compressed body %d bytes, JSON %d", seq, n, len(js))
			}
		} else if typ != "text" || n != int64(len(js)) {
			t.Errorf("seq %d: body %s of %d bytes; a plain body is the JSON (%d bytes)", seq, typ, n, len(js))
		}
		stored += n
		plain += int64(len(js))
	}
	rows.Close()
	if blobs < 3 || stored*2 > plain {
		t.Errorf("%d of %d bodies compressed, %d bytes stored for %d of JSON", blobs, len(in), stored, plain)
	}

	// Make it a store from before version 6: the first two rows back to
	// the plain JSON TEXT that version wrote.
	db.Close()
	toV7Layout(t, path)
	if db, err = sql.Open("sqlite", path); err != nil {
		t.Fatal(err)
	}
	for _, m := range want[:2] {
		js, _ := rowcodec.AppendMessageJSON(nil, &m)
		if _, err := db.ExecContext(ctx, `UPDATE messages SET body = ? WHERE session_key = ? AND seq = ?`, string(js), key, m.Seq); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `PRAGMA user_version = 5`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	st, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(domain.Content{})); diff != "" {
		t.Errorf("read after the upgrade (-before +after):\n%s", diff)
	}
	tail, err := st.ReadMessages(ctx, key, domain.MessageQuery{Limit: 3})
	if err != nil || len(tail) != 3 || tail[0].Seq != 2 {
		t.Fatalf("tail = %+v, %v", tail, err)
	}
	tails, err := st.ReadTails(ctx, []domain.Generation{{Key: key, SessionID: sid}}, 3, nil)
	if err != nil || len(tails) != 1 {
		t.Fatalf("tails = %v, %v", tails, err)
	}
	if diff := cmp.Diff(want[1:], tails[0], cmp.AllowUnexported(domain.Content{})); diff != "" {
		t.Errorf("tail of 3, one old row in it (-read +tails):\n%s", diff)
	}
	scanned, err := st.ScanMessages(ctx, "", 0, 10)
	if err != nil || len(scanned) != len(in) {
		t.Fatalf("scan = %d, %v", len(scanned), err)
	}
	for i, m := range scanned {
		if diff := cmp.Diff(want[i], m.Message, cmp.AllowUnexported(domain.Content{})); diff != "" {
			t.Errorf("scan %d (-read +scan):\n%s", i, diff)
		}
	}
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle"}, Limit: 10})
	if err != nil || len(hits) != len(in) {
		t.Fatalf("search = %d hits, %v", len(hits), err)
	}
	for _, h := range hits {
		if !strings.Contains(h.Snippet, "needle") {
			t.Errorf("seq %d snippet %q", h.Seq, h.Snippet)
		}
	}
	var version int
	if err := st.rdb.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("user_version = %d, %v", version, err)
	}
}

// TestCorruptBodyIsAnError: a compressed body that does not decompress is
// reported with the message it belongs to, not a panic or a wrong message.
func TestCorruptBodyIsAnError(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "k", AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
			return err
		}
		_, err := tx.AppendMessages("k", "s", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent(strings.Repeat("abc ", 50)), Timestamp: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rawExec(t, path, `UPDATE messages SET body = x'01210199ffffffffffff'`)
	_, err = st.ReadMessages(ctx, "k", domain.MessageQuery{})
	if err == nil || !strings.Contains(err.Error(), `"k"`) || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("read a corrupt body: %v", err)
	}
}
