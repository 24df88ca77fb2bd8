package postgres

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestSearchBackfill: messages stored before the search index (tsv NULL,
// as schema version 1 left them) are indexed when the store opens.
func TestSearchBackfill(t *testing.T) {
	ctx := t.Context()
	url := pg.Database(t)
	st, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 1}); err != nil {
			return err
		}
		_, err := tx.AppendMessages("agent:main:main", "s1", []domain.Message{
			{Role: domain.RoleUser, Content: domain.TextContent("old needle from version one"), Timestamp: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.pool.Exec(ctx, `UPDATE messages SET tsv = NULL`); err != nil {
		t.Fatal(err)
	}
	if hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle"}, Limit: 5}); err != nil || len(hits) != 0 {
		t.Fatalf("before the back-fill: %+v, %v", hits, err)
	}
	st.Close()
	st, err = Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle", "version"}, Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].Snippet != "old needle from version one" {
		t.Errorf("after reopening: %+v, %v; want the old message", hits, err)
	}
}
