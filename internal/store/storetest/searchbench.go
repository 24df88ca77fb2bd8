package storetest

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// The search benchmark's fixture, the same for every store so their
// numbers compare: 1,000,000 messages in SearchBenchSessions sessions of
// 20 agents (SearchBenchPerSession each), texts of 8 to 40 words drawn
// from a SearchBenchVocab-word vocabulary with a Zipf distribution (a few
// words are everywhere, most are rare, as in prose).
const (
	SearchBenchSessions   = 10_000
	SearchBenchPerSession = 100
	SearchBenchVocab      = 20_000
)

// SearchBenchWord is the word of rank r: pronounceable, distinct,
// deterministic.
func SearchBenchWord(r int) string {
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

// SearchBenchTexts draws the fixture's message texts in order: call Next
// once per message, sessions in order, so every store gets the same ones.
type SearchBenchTexts struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

// NewSearchBenchTexts starts the fixture's sequence of texts.
func NewSearchBenchTexts() *SearchBenchTexts {
	rng := rand.New(rand.NewPCG(1, 2))
	return &SearchBenchTexts{rng: rng, zipf: rand.NewZipf(rng, 1.1, 1, SearchBenchVocab-1)}
}

// Next is the next message's text and role (user and assistant in turn,
// by the message's index i in its session).
func (t *SearchBenchTexts) Next(i int) (text, role string) {
	words := make([]string, 8+t.rng.IntN(33))
	for j := range words {
		words[j] = SearchBenchWord(int(t.zipf.Uint64()))
	}
	role = domain.RoleUser
	if i%2 == 1 {
		role = domain.RoleAssistant
	}
	return strings.Join(words, " "), role
}

// BenchSearchQueries runs two-word queries, limit 20 (21 asked, as the
// engine asks one more to know whether a next page exists), over the
// fixture in st: word pairs of three frequency bands, as the operator and
// as requesters whose scope the store filters (one agent of 20; one
// session). It reports p50/p99 per sub-benchmark and hits per query.
func BenchSearchQueries(b *testing.B, st domain.MessageSearcher) {
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
					q := domain.MessageSearch{Words: []string{SearchBenchWord(band.lo + rng.IntN(band.span)), SearchBenchWord(band.lo + rng.IntN(band.span))}, Limit: 21}
					sc.set(&q)
					start := time.Now()
					res, err := st.SearchMessages(b.Context(), q)
					d = append(d, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					hits += len(res.Hits)
				}
				ReportPercentiles(b, d)
				b.ReportMetric(float64(hits)/float64(len(d)), "hits/op")
			})
		}
	}
}

// ReportPercentiles adds p50 and p99 of the per-op durations d to b's
// result (and sorts d).
func ReportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
}
