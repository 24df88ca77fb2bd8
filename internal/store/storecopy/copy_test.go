package storecopy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/pgtest"
)

var pg pgtest.Shared

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

func open(t *testing.T, spec string) bulk.Store {
	t.Helper()
	ep, err := ParseEndpoint(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ep.Open(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fill writes sessions of several kinds, two generations of one key, runs
// with equal creation times and outbox rows, through domain.Store.
func fill(t *testing.T, st domain.Store, sessions int) {
	t.Helper()
	err := st.Update(t.Context(), func(tx domain.Tx) error {
		for i := range sessions {
			key := fmt.Sprintf("agent:main:s%03d", i)
			s := domain.Session{Key: key, AgentID: "main", SessionID: "g1", Label: fmt.Sprintf("L%d", i%3), UpdatedAt: int64(i % 7),
				Origin: &domain.Origin{Provider: "webchat"}, TotalTokens: int64(i), EstimatedCostUSD: 0.25}
			if i%5 == 0 {
				s.ArchivedAt = 99
			}
			if err := tx.PutSession(s); err != nil {
				return err
			}
			for g, sid := range []string{"g0", "g1"} {
				if i%2 == 1 && g == 0 {
					continue
				}
				yes := true
				if _, err := tx.AppendMessages(key, sid, []domain.Message{
					{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("hi %d", i)), Timestamp: int64(i)},
					{Role: domain.RoleAssistant, Content: domain.BlockContent(domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "x", Arguments: []byte(`{"a": [1, 2]}`)}), RunID: "r"},
					{Role: domain.RoleToolResult, Content: domain.TextContent("ok"), ToolCallID: "c1", IsError: &yes, Details: []byte(`{"d":1}`)},
				}); err != nil {
					return err
				}
			}
			if _, _, err := tx.CreateRun(domain.Run{ID: fmt.Sprintf("run-%03d", i), SessionKey: key, Status: domain.RunOK, CreatedAt: 5,
				IdempotencyKey: fmt.Sprintf("k%d", i), Spec: []byte(`{"x":true}`), Attempt: 1}); err != nil {
				return err
			}
			if _, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: fmt.Sprintf("o%d", i), SessionKey: key, Payload: []byte(`{"p":1}`)}); err != nil {
				return err
			}
			// Usage (issue 16): a budget on some, rollups on all, spawned
			// by s000, and two ledger charges each.
			parent := ""
			if i > 0 {
				parent = "agent:main:s000"
			}
			if i%4 == 0 {
				if err := tx.PutAccount(domain.Account{SessionKey: key, SpawnedBy: parent, StartedAt: int64(1000 + i), DeadlineAt: int64(9000 + i),
					Budget: domain.Budget{Tokens: int64(500 + i), CostUSD: 1.5, Seconds: 60}}); err != nil {
					return err
				}
			}
			add := domain.UsageTotals{InputTokens: int64(10 * i), OutputTokens: int64(i), CostUSD: 0.125 * float64(i), Runs: 1}
			if _, err := tx.AddUsage(key, parent, true, add); err != nil {
				return err
			}
			for j, model := range []string{"m-a", "m-b"} {
				if err := tx.RecordUsage(domain.UsageEntry{At: int64(100*i + j), SessionKey: key, AgentID: []string{"main", "other"}[i%2],
					Model: model, RunID: fmt.Sprintf("run-%03d", i), InputTokens: int64(i + j), OutputTokens: int64(j), CostUSD: 0.5 * float64(j)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// requireSame compares what the domain.Store reads of a and b.
func requireSame(t *testing.T, a, b domain.Store) {
	t.Helper()
	ctx := t.Context()
	opts := cmp.Options{cmp.AllowUnexported(domain.Content{}), cmpopts.EquateEmpty()}
	la, err1 := a.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	lb, err2 := b.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(la, lb, opts); d != "" {
		t.Fatalf("sessions differ (-src +dst):\n%s", d)
	}
	for _, s := range la {
		for _, sid := range []string{"g0", "g1"} {
			ma, err1 := a.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: sid})
			mb, err2 := b.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: sid})
			if err := errors.Join(err1, err2); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(ma, mb, opts); d != "" {
				t.Fatalf("messages of %s/%s differ (-src +dst):\n%s", s.Key, sid, d)
			}
		}
	}
	ra, err1 := a.ListRuns(ctx, domain.RunQuery{})
	rb, err2 := b.ListRuns(ctx, domain.RunQuery{})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ra, rb, opts); d != "" {
		t.Fatalf("runs differ (-src +dst):\n%s", d)
	}
	oa, err1 := a.ListOutbox(ctx, domain.OutboxQuery{})
	ob, err2 := b.ListOutbox(ctx, domain.OutboxQuery{})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(oa, ob, opts); d != "" {
		t.Fatalf("outbox differs (-src +dst):\n%s", d)
	}
	// Usage accounts (rollups and budgets) and the usage report.
	keys := []string{"agent:main:none"}
	for _, s := range la {
		keys = append(keys, s.Key)
	}
	aa, err1 := a.GetAccounts(ctx, keys)
	ab, err2 := b.GetAccounts(ctx, keys)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(aa, ab, opts); d != "" {
		t.Fatalf("usage accounts differ (-src +dst):\n%s", d)
	}
	for _, by := range []string{"agent", "session", "model"} {
		ua, err1 := a.UsageReport(ctx, domain.UsageQuery{By: by})
		ub, err2 := b.UsageReport(ctx, domain.UsageQuery{By: by})
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if len(ua) == 0 {
			t.Fatalf("usage report by %s of the source is empty", by)
		}
		if d := cmp.Diff(ua, ub, opts); d != "" {
			t.Fatalf("usage report by %s differs (-src +dst):\n%s", by, d)
		}
	}
}

func TestSQLiteToPostgresAndBack(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	src := open(t, "sqlite:"+filepath.Join(dir, "src.db"))
	fill(t, src, 25)
	pgURL := pg.Database(t)
	dst := open(t, pgURL)

	var calls int
	sum, err := Copy(ctx, src, dst, Options{Batch: 7, Progress: func(done, total int64) {
		calls++
		if done > total {
			t.Errorf("progress %d of %d", done, total)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := bulk.Counts{Sessions: 25, Messages: 3 * (25 + 13), Runs: 25, Outbox: 25, Accounts: 25, Ledger: 50}
	if sum.Counts != want || sum.AlreadyCopied || sum.Bytes == 0 {
		t.Fatalf("summary %+v, want counts %+v", sum, want)
	}
	if calls < 10 {
		t.Errorf("progress called %d times for batches of 7", calls)
	}
	requireSame(t, src, dst)
	// The copy is searchable at once, with the same hits.
	for _, w := range []string{"hi", "ok"} {
		a, errA := searchHits(ctx, src, domain.MessageSearch{Words: []string{w}, Limit: 1000})
		b, errB := searchHits(ctx, dst, domain.MessageSearch{Words: []string{w}, Limit: 1000})
		if errA != nil || errB != nil || len(a) == 0 || len(a) != len(b) {
			t.Errorf("search %q: %d hits in the source, %d in the copy (%v, %v)", w, len(a), len(b), errA, errB)
		}
	}

	// Again: the target holds exactly this copy.
	again, err := Copy(ctx, src, dst, Options{})
	if err != nil || !again.AlreadyCopied || again.Counts != want {
		t.Fatalf("second copy: %+v, %v; want AlreadyCopied", again, err)
	}

	// Back into a new SQLite file: the same rows again.
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	back := open(t, "sqlite:"+filepath.Join(dir, "sub", "back.db"))
	if _, err := Copy(ctx, dst, back, Options{Batch: 1000}); err != nil {
		t.Fatal(err)
	}
	requireSame(t, src, back)
	fa, err1 := Digest(ctx, src, 100)
	fb, err2 := Digest(ctx, back, 100)
	if err := errors.Join(err1, err2); err != nil || fa != fb {
		t.Fatalf("digests differ: %+v vs %+v (%v)", fa, fb, err)
	}

	// The copies go on where the source stopped: seq, parent and outbox ids.
	for _, st := range []bulk.Store{dst, back} {
		var stored []domain.Message
		var item domain.OutboxItem
		err := st.Update(ctx, func(tx domain.Tx) error {
			var err error
			if stored, err = tx.AppendMessages("agent:main:s000", "g1", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("more")}}); err != nil {
				return err
			}
			item, _, err = tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "new", SessionKey: "agent:main:s000"})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		prev, _ := src.ReadMessages(ctx, "agent:main:s000", domain.MessageQuery{SessionID: "g1", Limit: 1})
		if stored[0].Seq != prev[0].Seq+1 || stored[0].ParentID != prev[0].ID {
			t.Errorf("append after copy: seq %d parent %q, want %d %q", stored[0].Seq, stored[0].ParentID, prev[0].Seq+1, prev[0].ID)
		}
		if item.ID <= 25 {
			t.Errorf("outbox id after copy = %d, want > 25", item.ID)
		}
	}

	// A target holding something else is refused.
	other := open(t, pg.Database(t))
	fill(t, other, 1)
	if _, err := Copy(ctx, src, other, Options{}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("copy into a non-empty target: %v, want ErrNotEmpty", err)
	}
}

// Entry ids that older stores drew at random keep working: ids appended
// after the copy do not collide with them.
func TestLegacyEntryIDs(t *testing.T) {
	ctx := t.Context()
	srcURL := pg.Database(t)
	src := open(t, srcURL)
	if err := src.Update(ctx, func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1"})
	}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, srcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// Random-looking ids, as a store before entry-id schemes wrote them.
	ids := []string{"0badf00d", "deadbeef", "12345678"}
	for i, id := range ids {
		parent := ""
		if i > 0 {
			parent = ids[i-1]
		}
		if _, err := conn.Exec(ctx, `INSERT INTO messages (session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body)
			VALUES ('agent:main:main', $1, 's1', $2, $3, 'user', '', 0, '{"role":"user","content":"x","timestamp":0}')`, i+1, id, parent); err != nil {
			t.Fatal(err)
		}
	}
	dstPath := filepath.Join(t.TempDir(), "d.db")
	dst := open(t, "sqlite:"+dstPath)
	if _, err := Copy(ctx, src, dst, Options{Batch: 2}); err != nil {
		t.Fatal(err)
	}
	var got []domain.Message
	if err := dst.Update(ctx, func(tx domain.Tx) error {
		var err error
		got, err = tx.AppendMessages("agent:main:main", "s1", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("y")}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got[0].ParentID != "12345678" || got[0].Seq != 4 {
		t.Errorf("append after copy: %+v", got[0])
	}
	for _, id := range ids {
		if got[0].ID == id {
			t.Errorf("new id %q collides", id)
		}
	}
	// The random ids were recorded as legacy in the SQLite copy (and the
	// appended one with them); copied on to PostgreSQL, all four are.
	db, err := sql.Open("sqlite", dstPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM legacy_entry_ids`).Scan(&n); err != nil || n != 4 {
		t.Errorf("SQLite copy: %d legacy ids (%v), want 4", n, err)
	}
	pgURL := pg.Database(t)
	again := open(t, pgURL)
	if _, err := Copy(ctx, dst, again, Options{}); err != nil {
		t.Fatal(err)
	}
	pconn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pconn.Close(context.Background())
	if err := pconn.QueryRow(ctx, `SELECT count(*) FROM legacy_entry_ids`).Scan(&n); err != nil || n != 4 {
		t.Errorf("PostgreSQL copy: %d legacy ids (%v), want 4", n, err)
	}
}

// The re-run check covers the usage tables: a target with the same counts
// whose account budget or ledger charge differs is refused, not taken for
// a finished copy.
func TestRerunDigestCoversUsage(t *testing.T) {
	for _, tc := range []struct{ name, tamper string }{
		{"account", `UPDATE session_accounts SET budget_tokens = budget_tokens + 1 WHERE session_key = 'agent:main:s000'`},
		{"ledger", `UPDATE usage_ledger SET cost_usd = cost_usd + 1 WHERE id = (SELECT max(id) FROM usage_ledger)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			src := open(t, "sqlite:"+filepath.Join(dir, "src.db"))
			fill(t, src, 5)
			dstPath := filepath.Join(dir, "dst.db")
			dst := open(t, "sqlite:"+dstPath)
			if _, err := Copy(ctx, src, dst, Options{}); err != nil {
				t.Fatal(err)
			}
			if again, err := Copy(ctx, src, dst, Options{}); err != nil || !again.AlreadyCopied {
				t.Fatalf("re-run before tampering: %+v, %v; want AlreadyCopied", again, err)
			}
			if err := dst.Close(); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", dstPath)
			if err != nil {
				t.Fatal(err)
			}
			res, err := db.ExecContext(ctx, tc.tamper)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("tamper changed %d rows, want 1", n)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			dst = open(t, "sqlite:"+dstPath)
			if _, err := Copy(ctx, src, dst, Options{}); !errors.Is(err, ErrNotEmpty) {
				t.Fatalf("re-run after changing the %s: %v, want ErrNotEmpty", tc.name, err)
			}
		})
	}
}
