package openclawimport

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// storeSnapshot is what a store holds of every session: rows and their
// current transcripts.
type storeSnapshot struct {
	Rows map[string]domain.Session
	Msgs map[string][]domain.Message
}

func takeStoreSnapshot(t *testing.T, st domain.Store) storeSnapshot {
	t.Helper()
	ctx := context.Background()
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	s := storeSnapshot{Rows: map[string]domain.Session{}, Msgs: map[string][]domain.Message{}}
	for _, r := range rows {
		s.Rows[r.Key] = r
		msgs, err := st.ReadMessages(ctx, r.Key, domain.MessageQuery{SessionID: r.SessionID})
		if err != nil {
			t.Fatal(err)
		}
		s.Msgs[r.Key] = msgs
	}
	return s
}

// notKept are the fields an OpenClaw state does not carry back
// (docs/openclaw-import.md, "What export does not keep"): the store's own
// message ids and sequence numbers.
var notKept = cmp.Options{
	cmpopts.IgnoreFields(domain.Message{}, "Seq", "ID", "ParentID"),
	cmpopts.EquateEmpty(),
	cmp.AllowUnexported(domain.Content{}),
}

// TestExportRoundTrip: import → export → import is the identity on what
// both sides keep, for both layouts, from both fixtures (the state
// OpenClaw 2026.9.6 wrote and the JSONL one with branches and subagents).
func TestExportRoundTrip(t *testing.T) {
	// Generated sessions longer than one multi-row insert of the SQLite
	// layout.
	long := filepath.Join(t.TempDir(), "long")
	if err := Generate(long, 3, 2*rowsPerInsert+7, 1); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{realState, filepath.Join("testdata", "openclaw"), long} {
		for _, layout := range Layouts {
			t.Run(filepath.Base(src)+"/"+layout, func(t *testing.T) {
				ctx := context.Background()
				first := openStore(t)
				if _, err := Import(ctx, first, copyState(t, src), testOptions()); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(t.TempDir(), "exported")
				sum, err := Export(ctx, first, out, ExportOptions{Layout: layout, Now: testOptions().Now})
				if err != nil {
					t.Fatal(err)
				}
				want := takeStoreSnapshot(t, first)
				if sum.Sessions != len(want.Rows) || sum.Layout != layout {
					t.Fatalf("export summary %+v, store has %d sessions", sum, len(want.Rows))
				}
				second := openStore(t)
				if _, err := Import(ctx, second, out, testOptions()); err != nil {
					t.Fatal(err)
				}
				got := takeStoreSnapshot(t, second)
				if d := cmp.Diff(want, got, notKept); d != "" {
					t.Fatalf("import → export → import changed (-first +second):\n%s", d)
				}
				if layout == LayoutSQLite {
					agents := map[string]bool{}
					for _, r := range want.Rows {
						agents[r.AgentID] = true
					}
					for a := range agents {
						checkExportedDB(t, agentDBPath(out, a))
					}
				}
			})
		}
	}
}

func TestExportRefusesNonEmptyTarget(t *testing.T) {
	st := openStore(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Export(context.Background(), st, dir, ExportOptions{})
	if !errors.Is(err, ErrTargetNotEmpty) || !strings.Contains(err.Error(), "keep.txt") {
		t.Fatalf("err = %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "keep.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("the target's file was touched: %q, %v", b, err)
	}
	if _, err := Export(context.Background(), st, filepath.Join(dir, "keep.txt"), ExportOptions{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("export onto a file: %v", err)
	}
	if _, err := Export(context.Background(), st, t.TempDir(), ExportOptions{Layout: "xml"}); err == nil || !strings.Contains(err.Error(), `layout "xml"`) {
		t.Fatalf("export with a bad layout: %v", err)
	}
}

// checkExportedDB checks the agent database at path whole: every index
// matches its table (the identities and their index entries are copied
// in from a side file), every event has its identity, and the side file
// is gone.
func checkExportedDB(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path + identitySideSuffix); err == nil {
		t.Errorf("%s%s is left behind", path, identitySideSuffix)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var verdict string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&verdict); err != nil || verdict != "ok" {
		t.Fatalf("integrity_check: %q, %v", verdict, err)
	}
	var events, identities, unmatched int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM transcript_events), (SELECT count(*) FROM transcript_event_identities),
		(SELECT count(*) FROM transcript_event_identities i LEFT JOIN transcript_events e USING (session_id, seq) WHERE e.seq IS NULL)`).Scan(&events, &identities, &unmatched); err != nil {
		t.Fatal(err)
	}
	if events == 0 || identities != events || unmatched != 0 {
		t.Errorf("%d events, %d identities, %d identities without their event", events, identities, unmatched)
	}
}

// TestTableSchema: the side file of identities gets their table and
// every index on it, and nothing else.
func TestTableSchema(t *testing.T) {
	got, err := tableSchema(agentSchemaSQL, "transcript_event_identities")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"CREATE TABLE transcript_event_identities (",
		"CREATE UNIQUE INDEX idx_agent_transcript_message_idempotency\n",
		"CREATE INDEX idx_agent_transcript_event_identity_sequence\n",
		"CREATE INDEX idx_agent_transcript_event_parent\n  ON transcript_event_identities(session_id, parent_id)\n  WHERE parent_id IS NOT NULL;",
		"CREATE INDEX idx_agent_transcript_event_sequence\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "CREATE "); n != 5 {
		t.Errorf("%d statements, want 5:\n%s", n, got)
	}
	if _, err := tableSchema(agentSchemaSQL, "no_such_table"); err == nil {
		t.Error("a table not in the schema was found")
	}
}

// failingReads is a store whose ReadMessages fails for one session key.
type failingReads struct {
	domain.Store
	key string
}

func (f failingReads) ReadMessages(ctx context.Context, key string, q domain.MessageQuery) ([]domain.Message, error) {
	if key == f.key {
		return nil, errors.New("disk on fire")
	}
	return f.Store.ReadMessages(ctx, key, q)
}

// TestExportFailsWhole: a session the store cannot read, in the middle of
// an agent, fails the export with its key, and nothing is left where
// OpenClaw would look (nor beside it), in both layouts.
func TestExportFailsWhole(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "gen")
	if err := Generate(src, 3*exportAhead, 2, 1); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	if _, err := Import(ctx, st, src, testOptions()); err != nil {
		t.Fatal(err)
	}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	// A session of the agent written first, and one of the agent written
	// last, while the first one's database is being finished.
	perAgent := map[string]int{}
	for _, r := range rows {
		perAgent[r.AgentID]++
	}
	if len(perAgent) < 2 {
		t.Fatalf("sessions of %d agents, want two or more", len(perAgent))
	}
	var first, last domain.Session
	for _, r := range rows {
		if first.Key == "" || perAgent[r.AgentID] > perAgent[first.AgentID] {
			first = r
		}
		if last.Key == "" || perAgent[r.AgentID] < perAgent[last.AgentID] {
			last = r
		}
	}
	for _, layout := range Layouts {
		for _, bad := range []string{first.Key, last.Key} {
			t.Run(layout+"/"+bad, func(t *testing.T) {
				parent := t.TempDir()
				out := filepath.Join(parent, "exported")
				_, err := Export(ctx, failingReads{Store: st, key: bad}, out, ExportOptions{Layout: layout})
				if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), bad) {
					t.Fatalf("err = %v, want the store's error naming %s", err, bad)
				}
				if des, _ := os.ReadDir(parent); len(des) != 0 {
					t.Fatalf("a failed export left %v", des)
				}
			})
		}
	}
}

// readsOutOfOrder holds the read of key first until key then has been
// read: with two readers the second session is ready before the first.
type readsOutOfOrder struct {
	domain.Store
	first, then string
	thenRead    chan struct{}
}

func (r readsOutOfOrder) ReadMessages(ctx context.Context, key string, q domain.MessageQuery) ([]domain.Message, error) {
	switch key {
	case r.first:
		select {
		case <-r.thenRead:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case r.then:
		defer close(r.thenRead)
	}
	return r.Store.ReadMessages(ctx, key, q)
}

// TestExportEachWritesInOrder: sessions read out of order by several
// readers are written in the order given.
func TestExportEachWritesInOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	src := filepath.Join(t.TempDir(), "gen")
	if err := Generate(src, 5, 2, 1); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	if _, err := Import(ctx, st, src, testOptions()); err != nil {
		t.Fatal(err)
	}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	rs := readsOutOfOrder{Store: st, first: rows[0].Key, then: rows[1].Key, thenRead: make(chan struct{})}
	w := exportWriter{ctx: ctx, st: rs, readers: 2, sum: &ExportSummary{}}
	var got []string
	err = w.each(rows, func(s *domain.Session, msgs []domain.TranscriptMessage) ([]byte, error) {
		return []byte(s.Key), nil
	}, func(x *exported) error {
		if string(x.data) != x.s.Key {
			t.Errorf("session %s carries the encoding %q", x.s.Key, x.data)
		}
		got = append(got, x.s.Key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(rows))
	for i, r := range rows {
		want[i] = r.Key
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if w.sum.Sessions != len(rows) || w.sum.Messages != 2*len(rows) {
		t.Errorf("summary %+v, want %d sessions of 2 messages", *w.sum, len(rows))
	}
}
