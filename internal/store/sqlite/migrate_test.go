package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// writeV1Store creates a store of schema version 1 at path, as a binary of
// that version left it: one full session row and two messages whose random
// ids are "deadbeef" and "00000001".
func writeV1Store(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		schemaV1,
		`INSERT INTO sessions (` + sessionColumnsV1 + `, search_text) VALUES ('agent:main:discord:group:42', 'main', 's1', 'group',
			'discord', 'group', 'Ops ✓', 'Ops Room', '{"provider":"discord","accountId":"acct-1"}',
			'{"channel":"discord","to":"channel:42","accountId":"acct-1","threadId":"t-7"}', 'discord', 'channel:42', 'acct-1',
			'agent:main:main', 2, 'run-parent', 1, 'openai/gpt-4.1-mini', '', 'openai', 'high', 'on', 'deny', 1, 0,
			9007199254740993, 2, 3, 4, 0.30000000000000004, 'running', 5, 6, 7, 8, 9, 0, 'x')`,
		`INSERT INTO sessions (` + sessionColumnsV1 + `, search_text) VALUES ('agent:main:plain', 'main', 's9', 'other',
			'', '', '', '', NULL, NULL, '', '', '', '', 0, '', 0, '', '', '', '', '', '', 0, 0, 0, 0, 0, 0, 0, '', 0, 0, 0, 1, 0, 0, 'x')`,
		`INSERT INTO messages (session_key, seq, session_id, id, parent_id, role, run_id, timestamp, body) VALUES
			('agent:main:discord:group:42', 1, 's1', 'deadbeef', '', 'user', '', 1, '{"role":"user","content":"one","timestamp":1}'),
			('agent:main:discord:group:42', 2, 's1', '00000001', 'deadbeef', 'user', 'r1', 2, '{"role":"user","content":"two","timestamp":2}')`,
		`PRAGMA user_version = 1`,
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(t.Context(), s); err != nil {
			t.Fatalf("%.60s: %v", s, err)
		}
	}
}

func TestMigrateFromV1(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	writeV1Store(t, path)
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer st.Close()

	want := domain.Session{
		Key: "agent:main:discord:group:42", AgentID: "main", SessionID: "s1", Kind: "group",
		Channel: "discord", ChatType: "group", Label: "Ops ✓", DisplayName: "Ops Room",
		Origin:      &domain.Origin{Provider: "discord", AccountID: "acct-1"},
		Delivery:    &domain.DeliveryContext{Channel: "discord", To: "channel:42", AccountID: "acct-1", ThreadID: "t-7"},
		LastChannel: "discord", LastTo: "channel:42", LastAccount: "acct-1",
		SpawnedBy: "agent:main:main", SpawnDepth: 2, SpawnRunID: "run-parent", Sandboxed: true,
		Model: "openai/gpt-4.1-mini", ModelProvider: "openai", ThinkingLevel: "high", VerboseLevel: "on", SendPolicy: "deny",
		SystemSent: true, InputTokens: 1<<53 + 1, OutputTokens: 2, TotalTokens: 3, ContextTokens: 4, EstimatedCostUSD: 0.30000000000000004,
		Status: "running", StartedAt: 5, EndedAt: 6, CreatedAt: 7, UpdatedAt: 8, ArchiveAt: 9,
	}
	got, err := st.GetSession(ctx, want.Key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("migrated session (-want +got):\n%s", diff)
	}
	// The indexes and search text came along.
	for _, q := range []domain.SessionQuery{{Search: "OPS ✓"}, {SpawnedBy: "agent:main:main"}, {Label: "Ops ✓"}, {AgentID: "main", Limit: 1}} {
		rows, err := st.ListSessions(ctx, q)
		if err != nil || len(rows) != 1 || rows[0].Key != want.Key {
			t.Errorf("ListSessions(%+v) = %d rows, %v", q, len(rows), err)
		}
	}
	if plain, err := st.GetSession(ctx, "agent:main:plain"); err != nil || plain.Origin != nil || plain.Delivery != nil || plain.UpdatedAt != 1 {
		t.Errorf("plain session = %+v, %v", plain, err)
	}

	// The legacy generation keeps its ids checked: a random id that is
	// already taken falls back to a UUID.
	st.newID = func() string { return "deadbeef" }
	var stored []domain.Message
	err = st.Update(ctx, func(tx domain.Tx) error {
		var err error
		stored, err = tx.AppendMessages(want.Key, "s1", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("three")}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if stored[0].Seq != 3 || len(stored[0].ID) != 36 || stored[0].ParentID != "00000001" {
		t.Errorf("append to the legacy generation: %+v; want seq 3, a UUID, parent 00000001", stored[0])
	}
	st.newID = func() string { return "cafebabe" }
	err = st.Update(ctx, func(tx domain.Tx) error {
		var err error
		stored, err = tx.AppendMessages(want.Key, "s1", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("four")}})
		return err
	})
	if err != nil || stored[0].ID != "cafebabe" {
		t.Errorf("second append: %+v, %v; want id cafebabe", stored, err)
	}
	// A new generation uses the collision-free scheme, unchecked.
	err = st.Update(ctx, func(tx domain.Tx) error {
		var err error
		stored, err = tx.AppendMessages(want.Key, "s2", []domain.Message{{Role: domain.RoleUser}, {Role: domain.RoleUser}})
		return err
	})
	if err != nil || stored[0].Seq != 5 || stored[0].ParentID != "" || stored[1].ParentID != stored[0].ID || stored[0].ID == stored[1].ID {
		t.Errorf("new generation: %+v, %v", stored, err)
	}
	msgs, err := st.ReadMessages(ctx, want.Key, domain.MessageQuery{SessionID: "s1"})
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Content.Text())
	}
	if err != nil || strings.Join(texts, ",") != "one,two,three,four" || msgs[1].RunID != "r1" {
		t.Errorf("s1 messages = %v, %v", texts, err)
	}

	// Deleting the session drops its legacy ids with its messages.
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.DeleteSession(want.Key) }); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.rdb.QueryRowContext(ctx, `SELECT count(*) FROM legacy_entry_ids`).Scan(&n); err != nil || n != 0 {
		t.Errorf("legacy ids after delete: %d, %v", n, err)
	}
}
