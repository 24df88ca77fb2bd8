package sqlite

import (
	"fmt"
	"testing"

	"modernc.org/sqlite"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// writerSpills returns the pages the write connection spilled to the WAL
// in the middle of a transaction since the last call.
func writerSpills(t *testing.T, st *Store) int {
	t.Helper()
	var n int
	err := st.wconn.Raw(func(dc any) error {
		var err error
		n, _, err = dc.(sqlite.DBStatus).Status(sqlite.DBStatusCacheSpill, true)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// putSessions writes n new sessions, each with a run and two messages, in
// one Update (one transaction).
func putSessions(t *testing.T, st *Store, prefix string, n int) {
	t.Helper()
	err := st.Update(t.Context(), func(tx domain.Tx) error {
		for i := range n {
			key := fmt.Sprintf("agent:a%d:%s:%s", i%20, prefix, domain.NewID())
			s := domain.Session{Key: key, AgentID: fmt.Sprintf("a%d", i%20), SessionID: domain.NewID(),
				Kind: domain.KindOther, Model: "openai/gpt-4.1-mini", CreatedAt: int64(i + 1), UpdatedAt: int64(i + 1)}
			if err := tx.PutSession(s); err != nil {
				return err
			}
			r := domain.Run{ID: domain.NewID(), SessionKey: key, SessionID: s.SessionID, AgentID: s.AgentID,
				Kind: domain.RunKind("chat"), IdempotencyKey: domain.NewID(), Status: domain.RunStatus("ok"), Message: "hello"}
			if _, _, err := tx.CreateRun(r); err != nil {
				return err
			}
			if _, err := tx.AppendMessages(key, s.SessionID, []domain.Message{
				{Role: domain.RoleUser, Content: domain.TextContent("hello there")},
				{Role: domain.RoleAssistant, Content: domain.TextContent("general kenobi")},
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriterPageCache: the write connection keeps a small page cache (its
// size is what SQLite walks at the end of most write transactions, see
// writerCacheKiB) but lets a transaction's dirty pages grow to
// writerSpillKiB before it spills any: a batch of a few hundred new
// sessions on a store much larger than the cache commits without spilling.
func TestWriterPageCache(t *testing.T) {
	st := openTemp(t)
	var cache, spill int
	if err := st.wconn.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&cache); err != nil {
		t.Fatal(err)
	}
	if err := st.wconn.QueryRowContext(t.Context(), "PRAGMA cache_spill").Scan(&spill); err != nil {
		t.Fatal(err)
	}
	if cache != -writerCacheKiB || spill < writerSpillKiB/5 {
		t.Errorf("cache_size = %d, cache_spill = %d pages; want %d and at least %d", cache, spill, -writerCacheKiB, writerSpillKiB/5)
	}
	for i := range 8 {
		putSessions(t, st, fmt.Sprintf("fill%d", i), 2500)
	}
	writerSpills(t, st)
	putSessions(t, st, "batch", 400)
	if n := writerSpills(t, st); n != 0 {
		t.Errorf("a batch of 400 new sessions spilled %d pages mid-transaction, want 0", n)
	}
}
