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
	hits, err := st.SearchMessages(ctx, domain.MessageSearch{Words: []string{"needle"}, TreeRoot: root, Limit: 1000})
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
	small, err := st.SearchMessages(ctx, domain.MessageSearch{Words: []string{"needle"}, TreeRoot: "agent:main:c005", Limit: 10})
	if err != nil || len(small) != 1 || small[0].SessionKey != "agent:main:c005" {
		t.Errorf("a leaf's tree: %+v, %v", small, err)
	}
}
