package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestSearchIndexCatchUpOneSegment: appends write no index rows; the
// search after them indexes all of them in one FTS5 segment, and finds
// every one. (Rows written several per statement made FTS5 write a
// segment at each statement's savepoint; rows written by every append
// made a segment per commit.)
func TestSearchIndexCatchUpOneSegment(t *testing.T) {
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
	per := 3*insertRowsMax + 1
	for round := 1; round <= 2; round++ {
		for c := range 3 {
			err := st.Update(ctx, func(tx domain.Tx) error {
				for s := range 2 {
					key := fmt.Sprintf("agent:main:r%d-%d-%d", round, c, s)
					if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
						return err
					}
					msgs := make([]domain.Message, per)
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
		}
		if got := segments(); got != round-1 {
			t.Fatalf("round %d, before searching: %d index segments, want %d (appends write none)", round, got, round-1)
		}
		hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"needle"}, Limit: 10_000})
		if want := round * 3 * 2 * per; err != nil || len(hits) != want {
			t.Fatalf("round %d: search found %d, %v; want every message (%d)", round, len(hits), err, want)
		}
		if got := segments(); got != round {
			t.Fatalf("round %d, after searching: %d index segments, want %d", round, got, round)
		}
	}
}
