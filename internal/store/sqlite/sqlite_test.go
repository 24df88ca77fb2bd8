package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild(os.Getenv(crashChildEnv)))
	}
	if path := os.Getenv(listAllChildEnv); path != "" {
		os.Exit(listAllChild(path))
	}
	goleak.VerifyTestMain(m)
}

// openTemp opens a fresh store in t.TempDir() and closes it after the test.
func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) domain.Store {
		st, err := Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return st
	})
}

func TestReopenKeepsData(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "state", "switchboard.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	var stored []domain.Message
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 7}); err != nil {
			return err
		}
		var err error
		stored, err = tx.AppendMessages("agent:main:main", "s1", []domain.Message{
			{Role: domain.RoleUser, Content: domain.TextContent("remember me"), Timestamp: 1},
		})
		return err
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	st, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer st.Close()
	sess, err := st.GetSession(ctx, "agent:main:main")
	if err != nil || sess.UpdatedAt != 7 {
		t.Errorf("session after reopen = %+v, %v", sess, err)
	}
	msgs, err := st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{})
	if err != nil || len(msgs) != 1 || msgs[0].ID != stored[0].ID || msgs[0].Content.Text() != "remember me" {
		t.Errorf("messages after reopen = %+v, %v", msgs, err)
	}
	if s := st.Stats(); s.Commits != 0 {
		t.Errorf("fresh store Stats().Commits = %d, want 0", s.Commits)
	}
	if st.Path() != path {
		t.Errorf("Path() = %q, want %q", st.Path(), path)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		want    []string // substrings of the error
	}{
		{
			name: "NewerSchema",
			prepare: func(t *testing.T, path string) {
				st, err := Open(t.Context(), path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				rawExec(t, path, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1))
			},
			want: []string{fmt.Sprintf("store schema version %d is newer than this switchboard supports (%d); upgrade switchboard", SchemaVersion+1, SchemaVersion)},
		},
		{
			name: "Garbage",
			prepare: func(t *testing.T, path string) {
				writeFile(t, path, []byte(strings.Repeat("this is not a database\n", 200)))
			},
			want: []string{"not a SQLite database"},
		},
		{
			name: "GarbageAfterHeader",
			prepare: func(t *testing.T, path string) {
				writeFile(t, path, []byte("SQLite format 3\x00"+strings.Repeat("\xff", 4096)))
			},
			want: []string{"not a SQLite database"},
		},
		{
			name: "ShortGarbage",
			prepare: func(t *testing.T, path string) {
				writeFile(t, path, []byte("hi"))
			},
			want: []string{"not a SQLite database"},
		},
		{
			name: "ForeignDatabase",
			prepare: func(t *testing.T, path string) {
				rawExec(t, path, "CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
			},
			want: []string{"no switchboard schema"},
		},
		{
			name: "OtherApplication",
			prepare: func(t *testing.T, path string) {
				rawExec(t, path, "PRAGMA application_id = 1234")
			},
			want: []string{"another application"},
		},
		{
			name:    "MissingDirectory",
			prepare: func(t *testing.T, path string) {},
			want:    []string{"cannot open"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "switchboard.db")
			if tc.name == "MissingDirectory" {
				path = filepath.Join(dir, "nope", "switchboard.db")
			}
			tc.prepare(t, path)
			before, _ := os.ReadFile(path)
			st, err := Open(t.Context(), path, Options{})
			if err == nil {
				st.Close()
				t.Fatal("Open succeeded, want an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the path %s", msg, path)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("a refused Open changed the file")
			}
		})
	}
}

func TestOpenInvalidOptions(t *testing.T) {
	if _, err := Open(t.Context(), "", Options{}); err == nil {
		t.Error("Open with an empty path: got nil error")
	}
	if _, err := Open(t.Context(), filepath.Join(t.TempDir(), "x.db"), Options{MaxBatch: -1}); err == nil {
		t.Error("Open with MaxBatch -1: got nil error")
	}
}

func TestPathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we?ird#dir %20")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.db")
	st, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer st.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not created at %s: %v", path, err)
	}
}

func TestPanicInFnRollsBackAndPropagates(t *testing.T) {
	st := openTemp(t)
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want the fn's panic value", v)
			}
		}()
		_ = st.Update(t.Context(), func(tx domain.Tx) error {
			if err := tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main"}); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if _, err := st.GetSession(t.Context(), "agent:main:main"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("write of a panicking fn: GetSession = %v, want ErrNotFound", err)
	}
	// The writer survives.
	if err := st.Update(t.Context(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: "agent:main:after", AgentID: "main"})
	}); err != nil {
		t.Fatalf("Update after a panic: %v", err)
	}
}

// TestGroupCommit checks that concurrent Updates share transactions. It
// runs in a synctest bubble: synctest.Wait returns once every goroutine
// is blocked, that is once every Update is queued behind the held fn.
func TestGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		const n = 64
		release := make(chan struct{})
		held := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			_ = st.Update(ctx, func(domain.Tx) error {
				close(held)
				<-release
				return nil
			})
		})
		<-held
		for i := range n {
			wg.Go(func() {
				err := st.Update(ctx, func(tx domain.Tx) error {
					return tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main"})
				})
				if err != nil {
					t.Errorf("Update: %v", err)
				}
			})
		}
		synctest.Wait()
		if d := st.Stats().QueueDepth; d != n {
			t.Fatalf("QueueDepth = %d, want %d", d, n)
		}
		close(release)
		wg.Wait()
		s := st.Stats()
		if s.Updates != n+1 || s.Commits != 2 || s.LastBatchSize != n {
			t.Errorf("stats %+v; want %d updates in 2 commits, the last of %d", s, n+1, n)
		}
	})
}

// TestUpdateAbandonedWhileQueued checks that a caller whose ctx ends while
// its fn waits in the queue gets ctx's error and fn never runs.
func TestUpdateAbandonedWhileQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		release := make(chan struct{})
		held := make(chan struct{})
		heldErr := make(chan error, 1)
		go func() {
			heldErr <- st.Update(context.Background(), func(domain.Tx) error {
				close(held)
				<-release
				return nil
			})
		}()
		<-held
		ctx, cancel := context.WithCancel(context.Background())
		ran := false
		errc := make(chan error, 1)
		go func() {
			errc <- st.Update(ctx, func(domain.Tx) error { ran = true; return nil })
		}()
		synctest.Wait()
		if d := st.Stats().QueueDepth; d != 1 {
			t.Fatalf("QueueDepth = %d, want 1", d)
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("abandoned Update = %v, want context.Canceled", err)
		}
		close(release)
		if err := <-heldErr; err != nil {
			t.Fatal(err)
		}
		// A later Update goes through the same writer, so ran is settled.
		if err := st.Update(context.Background(), func(domain.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if ran {
			t.Error("fn of an abandoned Update ran")
		}
		if s := st.Stats(); s.Updates != 2 {
			t.Errorf("writer ran %d fns, want 2", s.Updates)
		}
	})
}

// TestCloseFinishesQueued checks that Close commits what was queued before it.
func TestCloseFinishesQueued(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		held := make(chan struct{})
		errc := make(chan error, 2)
		go func() {
			errc <- st.Update(ctx, func(domain.Tx) error {
				close(held)
				<-release
				return nil
			})
		}()
		<-held
		go func() {
			errc <- st.Update(ctx, func(tx domain.Tx) error {
				return tx.PutSession(domain.Session{Key: "agent:main:queued", AgentID: "main"})
			})
		}()
		synctest.Wait()
		closed := make(chan error, 1)
		go func() { closed <- st.Close() }()
		close(release)
		for range 2 {
			if err := <-errc; err != nil {
				t.Errorf("queued Update: %v", err)
			}
		}
		if err := <-closed; err != nil {
			t.Fatalf("Close: %v", err)
		}
	})
	st, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.GetSession(t.Context(), "agent:main:queued"); err != nil {
		t.Errorf("Update queued before Close: %v", err)
	}
}

// TestListUsesIndexes checks the query plans of the hot queries: no full
// table scan and no sort step for the list order.
func TestListUsesIndexes(t *testing.T) {
	st := openTemp(t)
	tests := []struct {
		name string
		q    domain.SessionQuery
	}{
		{"Active", domain.SessionQuery{UpdatedSince: 1, Limit: 200}},
		{"Default", domain.SessionQuery{Limit: 50}},
		{"Archived", domain.SessionQuery{IncludeArchived: true, Limit: 50}},
		{"Agent", domain.SessionQuery{AgentID: "main", Limit: 50}},
		{"Cursor", domain.SessionQuery{AfterUpdatedAt: 5, AfterKey: "k", Limit: 50}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			query, args, err := buildSessionQuery(tc.q, false)
			if err != nil {
				t.Fatal(err)
			}
			plan := explain(t, st, query, args...)
			if strings.Contains(plan, "SCAN sessions\n") || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("plan of %+v scans or sorts:\n%s", tc.q, plan)
			}
		})
	}
	plan := explain(t, st, `SELECT m.seq, m.id, m.parent_id, g.session_id, m.run_id, m.body
FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen WHERE g.session_key = ?1
		AND g.session_id = (SELECT session_id FROM sessions WHERE key = ?1) ORDER BY m.seq DESC LIMIT ?`, "k", 50)
	if !strings.Contains(plan, "messages_gen_seq") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("history plan does not read the (gen, seq) index in order:\n%s", plan)
	}
}

func explain(t *testing.T, st *Store, query string, args ...any) string {
	t.Helper()
	rows, err := st.rdb.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	return b.String()
}

// rawExec runs one statement on the file at path with a plain connection.
func rawExec(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
