package postgres

import (
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// The SQLite store's search benchmark (internal/store/sqlite/
// search_bench_test.go) on PostgreSQL: 1,000,000 messages in 10,000
// sessions of 20 agents, texts of 8 to 40 words drawn with the same Zipf
// distribution and seeds from the same 20,000-word vocabulary, so the two
// stores answer the same queries. Run it with:
//
//	go test -run '^$' -bench BenchmarkSearch1M -benchtime 200x -timeout 60m ./internal/store/postgres
//
// The fixture is written with Import (COPY, the search index in the same
// transaction, as `switchboard migrate` writes) and ANALYZEd.

// fillSearch writes the fixture's first sessions sessions (the whole
// fixture is storetest.SearchBenchSessions).
func fillSearch(b testing.TB, st *Store, sessions int) {
	b.Helper()
	texts := storetest.NewSearchBenchTexts()
	start := time.Now()
	const perImport = 500 // sessions per Import: 50,000 messages
	for s0 := 0; s0 < sessions; s0 += perImport {
		var batch bulk.Batch
		for s := s0; s < min(s0+perImport, sessions); s++ {
			key := fmt.Sprintf("agent:a%d:s%05d", s%20, s)
			sid := fmt.Sprintf("sid-%05d", s)
			batch.Sessions = append(batch.Sessions, domain.Session{Key: key, AgentID: fmt.Sprintf("a%d", s%20), SessionID: sid,
				Kind: domain.KindOther, CreatedAt: benchNow, UpdatedAt: benchNow})
			parent := ""
			for i := range storetest.SearchBenchPerSession {
				text, role := texts.Next(i)
				id := fmt.Sprintf("%08x", s*storetest.SearchBenchPerSession+i)
				batch.Messages = append(batch.Messages, bulk.Message{SessionKey: key, Message: domain.Message{
					Seq: int64(i + 1), SessionID: sid, ID: id, ParentID: parent, Role: role,
					Content: domain.TextContent(text), Timestamp: benchNow + int64(i)}})
				parent = id
			}
		}
		if err := st.Import(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.FinishImport(b.Context()); err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	b.Logf("built %d messages in %v (%.0f messages/s, indexing included)", sessions*storetest.SearchBenchPerSession, el,
		float64(sessions*storetest.SearchBenchPerSession)/el.Seconds())
}

// BenchmarkSearch1M runs two-word queries, limit 20 (21 asked, as the
// engine asks one more to know whether a next page exists), over the
// fixture: word pairs of three frequency bands, as the operator and as
// requesters whose scope the store filters (one agent of 20; one session).
func BenchmarkSearch1M(b *testing.B) {
	st := openBench(b)
	fillSearch(b, st, storetest.SearchBenchSessions)
	storetest.BenchSearchQueries(b, st)
}
