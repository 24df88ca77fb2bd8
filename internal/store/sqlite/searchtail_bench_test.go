package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// BenchmarkSearchAfterTurn is what the lagging index costs a search: a
// store of 20,000 indexed messages; each iteration appends a chat turn's
// two messages and then searches two words as the operator (limit 20), so
// every search first indexes the two (searchindex.go). "idle" searches
// without appending. Reported: the search's p50 and p99.
//
//	go test -run '^$' -bench BenchmarkSearchAfterTurn -benchtime 2000x ./internal/store/sqlite
func BenchmarkSearchAfterTurn(b *testing.B) {
	for _, turn := range []bool{false, true} {
		name := "idle"
		if turn {
			name = "turn"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			st, err := Open(ctx, filepath.Join(b.TempDir(), "s.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			words := []string{"deploy", "gateway", "failed", "retry", "token", "config", "merge", "ticket"}
			text := func(i int) string {
				return fmt.Sprintf("the %s of the %s %s after %d", words[i%8], words[(i/8)%8], words[(i/64)%8], i)
			}
			appendTo := func(key string, from, n int) {
				err := st.Update(ctx, func(tx domain.Tx) error {
					if _, err := tx.GetSession(key); err != nil {
						if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s", UpdatedAt: 1}); err != nil {
							return err
						}
					}
					msgs := make([]domain.Message, n)
					for i := range msgs {
						msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text(from + i)), Timestamp: 1}
					}
					_, err := tx.AppendMessages(key, "s", msgs)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			for s := range 1000 {
				appendTo(fmt.Sprintf("agent:main:s%d", s), s*20, 20)
			}
			if _, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{"deploy"}, Limit: 1}); err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if turn {
					appendTo(fmt.Sprintf("agent:main:s%d", i%1000), i, 2)
				}
				start := time.Now()
				hits, err := searchHits(ctx, st, domain.MessageSearch{Words: []string{words[i%8], words[(i+3)%8]}, Limit: 21})
				lat = append(lat, time.Since(start))
				if err != nil || len(hits) == 0 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
