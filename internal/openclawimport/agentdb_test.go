package openclawimport

import (
	"context"
	"database/sql"
	"errors"
	"github.com/google/go-cmp/cmp"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// realState is a state directory OpenClaw 2026.9.6 wrote itself
// (testdata/openclaw-2026.9.6/README.md).
var realState = filepath.Join("testdata", "openclaw-2026.9.6")

const telegramKey = "agent:main:telegram:group:-100123"

// copyState copies a state directory into a temporary one, so tests (and
// SQLite's -shm files) never write into testdata.
func copyState(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestImportSQLiteLayout(t *testing.T) {
	ctx := context.Background()
	dir := copyState(t, realState)
	st := openStore(t)
	sum, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Agents != 1 || sum.Sessions != 3 || sum.Messages != 8 || sum.Skipped[reasonNoTranscript] != 1 {
		t.Fatalf("summary = %+v", sum)
	}
	g, err := st.GetSession(ctx, telegramKey)
	if err != nil {
		t.Fatal(err)
	}
	if g.SessionID != "13d8a1b5-c556-41de-9fe9-8f56d95368d8" || g.Kind != domain.KindGroup || g.Channel != "telegram" || g.ChatType != "group" ||
		g.Model != "m1" || g.ModelProvider != "fake" || g.ContextTokens != 128000 || g.InputTokens == 0 || g.UpdatedAt == 0 {
		t.Errorf("telegram group row = %+v", g)
	}
	msgs, err := st.ReadMessages(ctx, telegramKey, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user: hi", "assistant: reply number 1", "user: second message", "assistant: reply number 2", "user: after compaction", "assistant: reply number 4"}
	if got := brief(msgs); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("transcript = %q, want %q", got, want)
	}
	if u := msgs[1].Usage; u == nil || u.Input != 10 || u.Output != 3 || msgs[1].Provider != "fake" || msgs[1].StopReason != "stop" {
		t.Errorf("assistant message = %+v (usage %+v)", msgs[1], msgs[1].Usage)
	}
	if _, err := st.GetSession(ctx, "agent:main:main"); err != nil {
		t.Errorf("the session without a transcript: %v", err)
	}

	again, err := Import(ctx, st, dir, testOptions())
	if err != nil || again.Sessions != 0 || again.Messages != 0 {
		t.Fatalf("second import: %+v, %v", again, err)
	}
}

// agentDBFile is the agent database of a copied state dir.
func agentDBFile(dir string) string { return agentDBPath(dir, "main") }

// writeDB runs stmts on a copied agent database with a writable
// connection.
func writeDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// assertNothingImported checks that a refused import left the store empty.
func assertNothingImported(t *testing.T, st domain.Store) {
	t.Helper()
	rows, err := st.ListSessions(context.Background(), domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Fatalf("a refused import wrote %d sessions", len(rows))
	}
}

func TestImportSQLiteRefusesNewerSchema(t *testing.T) {
	dir := copyState(t, realState)
	writeDB(t, agentDBFile(dir), "UPDATE schema_meta SET schema_version = 24, app_version = '2026.11.1'", "PRAGMA user_version = 24")
	st := openStore(t)
	_, err := Import(context.Background(), st, dir, testOptions())
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "schema version 24 (OpenClaw 2026.11.1)") ||
		!strings.Contains(err.Error(), "up to 23 (OpenClaw 2026.9.6)") {
		t.Fatalf("err = %v", err)
	}
	assertNothingImported(t, st)
}

func TestImportSQLiteRefusesCorruptFile(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(t *testing.T, path string)
		want string
	}{
		{"garbage", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 300)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a SQLite database"},
		{"page overwritten", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, _ := f.Stat()
			// Garble the last pages, where the transcripts are, leaving
			// the header and schema readable.
			junk := []byte(strings.Repeat("\xff\x00garbage", 8192/9+1))[:8192]
			for off := fi.Size() - 16*4096; off < fi.Size(); off += 4096 * 2 {
				if _, err := f.WriteAt(junk[:4096], off); err != nil {
					t.Fatal(err)
				}
			}
		}, "corrupt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyState(t, realState)
			tt.edit(t, agentDBFile(dir))
			st := openStore(t)
			_, err := Import(context.Background(), st, dir, testOptions())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), agentDBFile(dir)) {
				t.Fatalf("err = %v, want it to name the file and say %q", err, tt.want)
			}
			assertNothingImported(t, st)
		})
	}
}

// TestImportSQLiteRefusesCorruptFileOnReimport: the integrity check runs
// while sessions are planned; an import with nothing to write still
// waits for it and fails, and the store keeps what it had.
func TestImportSQLiteRefusesCorruptFileOnReimport(t *testing.T) {
	dir := copyState(t, realState)
	st := openStore(t)
	if _, err := Import(context.Background(), st, dir, testOptions()); err != nil {
		t.Fatal(err)
	}
	before := takeStoreSnapshot(t, st)
	// An index page of a table the import does not read: planning sees
	// an unchanged state, only the check sees the damage.
	writeDB(t, agentDBFile(dir), "CREATE TABLE padding (x TEXT)", "CREATE INDEX padding_x ON padding(x)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO padding SELECT hex(randomblob(200)) FROM n")
	corruptIndex(t, agentDBFile(dir), "padding_x")
	_, err := Import(context.Background(), st, dir, testOptions())
	if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), agentDBFile(dir)) {
		t.Fatalf("err = %v, want it to name the file and say corrupt", err)
	}
	if d := cmp.Diff(before, takeStoreSnapshot(t, st), cmp.AllowUnexported(domain.Content{})); d != "" {
		t.Fatalf("a refused import changed the store:\n%s", d)
	}
}

// corruptIndex overwrites the root page of index name with garbage.
func corruptIndex(t *testing.T, path, name string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var root, pageSize int64
	err = db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = ?", name).Scan(&root)
	if err == nil {
		err = db.QueryRow("PRAGMA page_size").Scan(&pageSize)
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\x0d\xff\x00garbage", int(pageSize)))[:pageSize]
	if _, err := f.WriteAt(junk, (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}

func TestImportSQLiteRefusesLockedFile(t *testing.T) {
	dir := copyState(t, realState)
	path := agentDBFile(dir)
	// A writer holding the file exclusively, as OpenClaw does while it
	// rewrites it.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("ROLLBACK")
	st := openStore(t)
	opts := testOptions()
	opts.LockWait = 1
	_, err = Import(context.Background(), st, dir, opts)
	if err == nil || !strings.Contains(err.Error(), "locked by another process") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	assertNothingImported(t, st)
}

// TestImportSQLiteCompressedEvents: OpenClaw stores large events
// zstd-compressed (event_zstd, event_json NULL); they read as the same
// transcript.
func TestImportSQLiteCompressedEvents(t *testing.T) {
	dir := copyState(t, realState)
	path := agentDBFile(dir)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	rows, err := db.Query("SELECT session_id, seq, event_json FROM transcript_events WHERE event_json LIKE '%\"type\":\"message\"%'")
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		sid  string
		seq  int
		json string
	}
	var evs []ev
	for rows.Next() {
		var e ev
		if err := rows.Scan(&e.sid, &e.seq, &e.json); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	rows.Close()
	if len(evs) != 8 {
		t.Fatalf("%d message events in the fixture", len(evs))
	}
	const nav = `{"version":1,"report":{"kind":"canonical"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`
	for _, e := range evs[:5] {
		z := enc.EncodeAll([]byte(e.json), nil)
		if _, err := db.Exec("UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = ?, navigation_json = ? WHERE session_id = ? AND seq = ?",
			z, len(e.json), nav, e.sid, e.seq); err != nil {
			t.Fatal(err)
		}
	}
	st := openStore(t)
	sum, err := Import(context.Background(), st, dir, testOptions())
	if err != nil || sum.Messages != 8 {
		t.Fatalf("import: %+v, %v", sum, err)
	}
	msgs, err := st.ReadMessages(context.Background(), telegramKey, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(brief(msgs), "|"); got != "user: hi|assistant: reply number 1|user: second message|assistant: reply number 2|user: after compaction|assistant: reply number 4" {
		t.Fatalf("transcript = %s", got)
	}
}
