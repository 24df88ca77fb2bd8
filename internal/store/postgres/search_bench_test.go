package postgres

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
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

const (
	searchSessions   = 10_000
	searchPerSession = 100
	searchVocab      = 20_000
)

// benchWord is the word of rank r (as the SQLite benchmark's).
func benchWord(r int) string {
	const cons, vows = "bcdfghjklmnprstvz", "aeiou"
	var b strings.Builder
	for r >= 0 {
		b.WriteByte(cons[r%len(cons)])
		r /= len(cons)
		b.WriteByte(vows[r%len(vows)])
		r = r/len(vows) - 1
	}
	return b.String()
}

// fillSearch writes the fixture's first sessions sessions (the whole
// fixture is searchSessions).
func fillSearch(b testing.TB, st *Store, sessions int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, searchVocab-1)
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
			for i := range searchPerSession {
				n := 8 + rng.IntN(33)
				words := make([]string, n)
				for j := range words {
					words[j] = benchWord(int(zipf.Uint64()))
				}
				role := domain.RoleUser
				if i%2 == 1 {
					role = domain.RoleAssistant
				}
				id := fmt.Sprintf("%08x", s*searchPerSession+i)
				batch.Messages = append(batch.Messages, bulk.Message{SessionKey: key, Message: domain.Message{
					Seq: int64(i + 1), SessionID: sid, ID: id, ParentID: parent, Role: role,
					Content: domain.TextContent(strings.Join(words, " ")), Timestamp: benchNow + int64(i)}})
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
	b.Logf("built %d messages in %v (%.0f messages/s, indexing included)", sessions*searchPerSession, el,
		float64(sessions*searchPerSession)/el.Seconds())
}

// BenchmarkSearch1M runs two-word queries, limit 20 (21 asked, as the
// engine asks one more to know whether a next page exists), over the
// fixture: word pairs of three frequency bands, as the operator and as
// requesters whose scope the store filters (one agent of 20; one session).
func BenchmarkSearch1M(b *testing.B) {
	st := openBench(b)
	fillSearch(b, st, searchSessions)
	bands := []struct {
		name     string
		lo, span int
	}{
		{"common", 0, 20},
		{"medium", 100, 2_000},
		{"rare", 5_000, 15_000},
	}
	scopes := []struct {
		name string
		set  func(q *domain.MessageSearch)
	}{
		{"operator", func(*domain.MessageSearch) {}},
		{"agent", func(q *domain.MessageSearch) { q.AgentIDs = []string{"a7"} }},
		{"self", func(q *domain.MessageSearch) { q.Keys = []string{"agent:a7:s00007"} }},
	}
	for _, sc := range scopes {
		for _, band := range bands {
			b.Run(sc.name+"/"+band.name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(3, 4))
				var d []time.Duration
				hits := 0
				for b.Loop() {
					q := domain.MessageSearch{Words: []string{benchWord(band.lo + rng.IntN(band.span)), benchWord(band.lo + rng.IntN(band.span))}, Limit: 21}
					sc.set(&q)
					start := time.Now()
					res, err := st.SearchMessages(b.Context(), q)
					d = append(d, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					hits += len(res)
				}
				reportPercentiles(b, d)
				b.ReportMetric(float64(hits)/float64(len(d)), "hits/op")
			})
		}
	}
}
