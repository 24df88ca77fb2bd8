package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestSearchIndexOneSegmentPerCommit: the index rows of one Update reach
// FTS5 as one segment, however many messages it appends. (Rows written
// several per statement made FTS5 write a segment at each statement's
// savepoint, one per 16 messages, and spend an import merging them.)
func TestSearchIndexOneSegmentPerCommit(t *testing.T) {
	ctx := t.Context()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	segments := func() int {
		t.Helper()
		var n int
		if err := st.rdb.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM messages_fts_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for round := 1; round <= 3; round++ {
		err := st.Update(ctx, func(tx domain.Tx) error {
			for s := range 4 {
				key := fmt.Sprintf("agent:main:r%d-%d", round, s)
				if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
					return err
				}
				msgs := make([]domain.Message, 3*insertRowsMax+1)
				for i := range msgs {
					msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("needle %d of round %d", i, round)), Timestamp: 1}
				}
				if _, err := tx.AppendMessages(key, "s", msgs); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := segments(); got != round {
			t.Fatalf("after %d commits of %d messages: %d index segments, want %d", round, 4*(3*insertRowsMax+1), got, round)
		}
	}
	hits, err := st.SearchMessages(ctx, domain.MessageSearch{Words: []string{"needle"}, Limit: 1000})
	if err != nil || len(hits) != 3*4*(3*insertRowsMax+1) {
		t.Fatalf("search found %d, %v; want every message", len(hits), err)
	}
}
