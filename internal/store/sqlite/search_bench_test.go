package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// Search benchmark: 1,000,000 messages in 10,000 sessions of 20 agents
// (100 messages each), texts of 8 to 40 words drawn from a 20,000-word
// vocabulary with a Zipf distribution (a few words are everywhere, most
// are rare, as in prose). Run it with:
//
//	go test -run '^$' -bench BenchmarkSearch1M -benchtime 200x ./internal/store/sqlite
//
// SWITCHBOARD_SEARCH_BENCH_DB names a file to keep the fixture in between
// runs (it is built when missing); without it the fixture is built in a
// temporary directory every run.

// openSearchFixture opens (building it when needed) the 1M-message store.
func openSearchFixture(b *testing.B) *Store {
	b.Helper()
	path := os.Getenv("SWITCHBOARD_SEARCH_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "search.db")
	}
	_, statErr := os.Stat(path)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	if statErr == nil {
		return st
	}
	texts := storetest.NewSearchBenchTexts()
	start := time.Now()
	const perUpdate = 50 // sessions per Update: 5,000 messages
	for s0 := 0; s0 < storetest.SearchBenchSessions; s0 += perUpdate {
		err := st.Update(context.Background(), func(tx domain.Tx) error {
			for s := s0; s < s0+perUpdate; s++ {
				key := fmt.Sprintf("agent:a%d:s%05d", s%20, s)
				sid := fmt.Sprintf("sid-%05d", s)
				if err := tx.PutSession(domain.Session{Key: key, AgentID: fmt.Sprintf("a%d", s%20), SessionID: sid,
					Kind: domain.KindOther, UpdatedAt: benchNow}); err != nil {
					return err
				}
				msgs := make([]domain.Message, storetest.SearchBenchPerSession)
				for i := range msgs {
					text, role := texts.Next(i)
					msgs[i] = domain.Message{Role: role, Content: domain.TextContent(text), Timestamp: benchNow + int64(i)}
				}
				if _, err := tx.AppendMessages(key, sid, msgs); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start)
	b.Logf("built %d messages in %v (%.0f messages/s, indexing included)", storetest.SearchBenchSessions*storetest.SearchBenchPerSession, el,
		float64(storetest.SearchBenchSessions*storetest.SearchBenchPerSession)/el.Seconds())
	return st
}

// BenchmarkSearch1M runs two-word queries, limit 20, over the fixture:
// word pairs of three frequency bands, as the operator and as requesters
// whose scope the store filters (one agent of 20; one session).
func BenchmarkSearch1M(b *testing.B) {
	st := openSearchFixture(b)
	storetest.BenchSearchQueries(b, st)
}
