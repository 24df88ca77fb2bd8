package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestSearchLargeTree: a tree too large to name by scope tokens is
// filtered by SQL alone, with the same result.
func TestSearchLargeTree(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const root = "agent:main:main"
	err = st.Update(ctx, func(tx domain.Tx) error {
		for i := range scopeTokensMax + 10 {
			key, parent := fmt.Sprintf("agent:main:c%03d", i), root
			if i == 0 {
				key, parent = root, ""
			}
			if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s" + key, SpawnedBy: parent, UpdatedAt: 1}); err != nil {
				return err
			}
			if _, err := tx.AppendMessages(key, "s"+key, []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("needle"), Timestamp: 1}}); err != nil {
				return err
			}
		}
		if err := tx.PutSession(domain.Session{Key: "agent:main:outsider", AgentID: "main", SessionID: "so", UpdatedAt: 1}); err != nil {
			return err
		}
		_, err := tx.AppendMessages("agent:main:outsider", "so", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("needle"), Timestamp: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.treeKeys(ctx, root)
	if err != nil || keys != nil {
		t.Fatalf("treeKeys = %d keys, %v; want nil (too many)", len(keys), err)
	}
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle"}, TreeRoot: root, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != scopeTokensMax+10 {
		t.Errorf("%d hits, want %d (the tree, not the outsider)", len(hits), scopeTokensMax+10)
	}
	for _, h := range hits {
		if h.SessionKey == "agent:main:outsider" {
			t.Error("the outsider matched")
		}
	}
	small, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle"}, TreeRoot: "agent:main:c005", Limit: 10})
	if err != nil || len(small) != 1 || small[0].SessionKey != "agent:main:c005" {
		t.Errorf("a leaf's tree: %+v, %v", small, err)
	}
}

// TestSearchIndexFollowsBatches: concurrent Updates (so the writer groups
// them in batches with a savepoint each) that append, fail after
// appending, and delete sessions leave exactly the surviving messages in
// the index.
func TestSearchIndexFollowsBatches(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	errBoom := fmt.Errorf("boom")
	const workers, rounds = 8, 40
	done := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range rounds {
				key := fmt.Sprintf("agent:main:w%d-%d", w, i%5)
				var err error
				switch i % 4 {
				case 0, 1:
					err = st.Update(ctx, func(tx domain.Tx) error {
						if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
							return err
						}
						_, err := tx.AppendMessages(key, "s", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("needle kept"), Timestamp: 1}})
						return err
					})
				case 2:
					err = st.Update(ctx, func(tx domain.Tx) error {
						if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
							return err
						}
						if _, err := tx.AppendMessages(key, "s", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("needle ghost"), Timestamp: 1}}); err != nil {
							return err
						}
						return errBoom
					})
					if err == errBoom {
						err = nil
					}
				case 3:
					err = st.Update(ctx, func(tx domain.Tx) error { return tx.DeleteSession(key) })
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range workers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if g, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"ghost"}, Limit: 100}); err != nil || len(g) != 0 {
		t.Fatalf("rolled-back messages found: %d, %v", len(g), err)
	}
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle"}, Limit: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	rows, err := st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rows {
		msgs, err := st.ReadMessages(ctx, s.Key, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		want += len(msgs)
	}
	if len(hits) != want {
		t.Errorf("%d hits, want the %d stored messages", len(hits), want)
	}
	var orphans int
	if err := st.rdb.QueryRowContext(ctx, `SELECT count(*) FROM messages_fts f WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.rowid = f.rowid)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d index rows without a message", orphans)
	}
}
