package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestMigrateV4BackFills: a store from before the search index is
// searchable as soon as it opens, and its legacy random ids page history.
func TestMigrateV4BackFills(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "switchboard.db")
	writeV1Store(t, path)
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer st.Close()
	const key = "agent:main:discord:group:42"
	hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"two"}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].SessionKey != key || hits[0].MessageID != "00000001" || hits[0].Snippet != "two" {
		t.Errorf("hits = %+v, want the migrated message 00000001", hits)
	}
	msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{Limit: 5, BeforeID: "00000001"})
	if err != nil || len(msgs) != 1 || msgs[0].ID != "deadbeef" {
		t.Errorf("before the legacy id 00000001: %+v, %v; want deadbeef", msgs, err)
	}
	var version int
	if err := st.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil || version != SchemaVersion {
		t.Errorf("user_version = %d, %v; want %d", version, err, SchemaVersion)
	}
}
