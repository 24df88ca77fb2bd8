package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
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

const (
	searchSessions   = 10_000
	searchPerSession = 100
	searchVocab      = 20_000
)

// benchWord is the word of rank r: pronounceable, distinct, deterministic.
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
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, searchVocab-1)
	start := time.Now()
	const perUpdate = 50 // sessions per Update: 5,000 messages
	for s0 := 0; s0 < searchSessions; s0 += perUpdate {
		err := st.Update(context.Background(), func(tx domain.Tx) error {
			for s := s0; s < s0+perUpdate; s++ {
				key := fmt.Sprintf("agent:a%d:s%05d", s%20, s)
				sid := fmt.Sprintf("sid-%05d", s)
				if err := tx.PutSession(domain.Session{Key: key, AgentID: fmt.Sprintf("a%d", s%20), SessionID: sid,
					Kind: domain.KindOther, UpdatedAt: benchNow}); err != nil {
					return err
				}
				msgs := make([]domain.Message, searchPerSession)
				for i := range msgs {
					n := 8 + rng.IntN(33)
					words := make([]string, n)
					for j := range words {
						words[j] = benchWord(int(zipf.Uint64()))
					}
					role := domain.RoleUser
					if i%2 == 1 {
						role = domain.RoleAssistant
					}
					msgs[i] = domain.Message{Role: role, Content: domain.TextContent(strings.Join(words, " ")), Timestamp: benchNow + int64(i)}
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
	b.Logf("built %d messages in %v (%.0f messages/s, indexing included)", searchSessions*searchPerSession, el,
		float64(searchSessions*searchPerSession)/el.Seconds())
	return st
}

// BenchmarkSearch1M runs two-word queries, limit 20, over the fixture:
// word pairs of three frequency bands, as the operator and as requesters
// whose scope the store filters (one agent of 20; one session).
func BenchmarkSearch1M(b *testing.B) {
	st := openSearchFixture(b)
	bands := []struct {
		name     string
		lo, span int
	}{
		{"common", 0, 20},       // words in most messages: the first 21 hits come at once
		{"medium", 100, 2_000},  // the usual search: distinctive but not rare words
		{"rare", 5_000, 15_000}, // few messages have either word; most pairs match nothing
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
					res, err := st.SearchMessages(context.Background(), q)
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
