package postgres

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// The SQLite store's benchmarks (internal/store/sqlite/bench_test.go) on
// PostgreSQL, over loopback TCP to a local server with its default
// durability (pgtest makes the benchmark cluster durable). Run them with:
//
//	go test -run '^$' -bench . -benchtime 2s ./internal/store/postgres

const benchNow = int64(1_750_000_000_000)

func openBench(b *testing.B) *Store {
	b.Helper()
	st, err := Open(b.Context(), pg.Database(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	return st
}

// fillSessions puts the SQLite benchmark's n sessions in st (with COPY:
// the fixture, not the thing measured).
func fillSessions(b *testing.B, st *Store, n int) {
	b.Helper()
	rows := make([]domain.Session, n)
	for i := range rows {
		rows[i] = domain.Session{
			Key:         fmt.Sprintf("agent:a%d:sub:%08d", i%20, i),
			AgentID:     fmt.Sprintf("a%d", i%20),
			SessionID:   domain.NewID(),
			Kind:        domain.KindOther,
			SpawnedBy:   fmt.Sprintf("agent:a%d:main", i%20),
			Label:       fmt.Sprintf("task %d", i),
			Model:       "openai/gpt-4.1-mini",
			Channel:     "discord",
			Delivery:    &domain.DeliveryContext{Channel: "discord", To: "channel:1"},
			CreatedAt:   benchNow - int64(i)*10_000,
			UpdatedAt:   benchNow - int64(i)*10_000,
			TotalTokens: int64(i),
		}
		if i%10 == 3 {
			rows[i].ArchivedAt = benchNow
		}
	}
	if err := st.Import(b.Context(), bulk.Batch{Sessions: rows}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.pool.Exec(b.Context(), `ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkListActive60Limit200(b *testing.B) {
	st := openBench(b)
	fillSessions(b, st, 100_000)
	q := domain.SessionQuery{UpdatedSince: benchNow - 60*60_000, Limit: 200}
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		rows, err := st.ListSessions(b.Context(), q)
		durs = append(durs, time.Since(start))
		if err != nil || len(rows) != 200 {
			b.Fatalf("ListSessions = %d rows, %v", len(rows), err)
		}
	}
	storetest.ReportPercentiles(b, durs)
}

func BenchmarkListAll(b *testing.B) {
	st := openBench(b)
	fillSessions(b, st, 100_000)
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		rows, err := st.ListSessions(b.Context(), domain.SessionQuery{})
		durs = append(durs, time.Since(start))
		if err != nil || len(rows) != 90_000 {
			b.Fatalf("ListSessions = %d rows, %v", len(rows), err)
		}
	}
	storetest.ReportPercentiles(b, durs)
}

func BenchmarkHistoryLast50(b *testing.B) {
	st := openBench(b)
	const key, sid, n = "agent:main:main", "s1", 100_000
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, Kind: domain.KindMain, UpdatedAt: benchNow}); err != nil {
			return err
		}
		batch := make([]domain.Message, 0, 1000)
		for i := range n {
			batch = append(batch, domain.Message{Role: domain.RoleUser, Timestamp: benchNow + int64(i),
				Content: domain.TextContent(fmt.Sprintf("message %d: please look into the failing deploy", i))})
			if len(batch) == cap(batch) {
				if _, err := tx.AppendMessages(key, sid, batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// What autovacuum does soon after a real transcript grows: statistics.
	if _, err := st.pool.Exec(b.Context(), `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		msgs, err := st.ReadMessages(b.Context(), key, domain.MessageQuery{Limit: 50})
		durs = append(durs, time.Since(start))
		if err != nil || len(msgs) != 50 || msgs[49].Seq != n {
			b.Fatalf("ReadMessages = %d messages, %v", len(msgs), err)
		}
	}
	storetest.ReportPercentiles(b, durs)
}

func appendAndUpdate(st *Store, b *testing.B, key string, i int) error {
	msg := domain.Message{Role: domain.RoleUser, Timestamp: benchNow + int64(i),
		Content: domain.TextContent("please look into the failing deploy and report back")}
	return st.Update(b.Context(), func(tx domain.Tx) error {
		s, err := tx.GetSession(key)
		if err != nil {
			return err
		}
		stored, err := tx.AppendMessages(key, s.SessionID, []domain.Message{msg})
		if err != nil {
			return err
		}
		s.UpdatedAt = stored[0].Timestamp
		s.TotalTokens++
		return tx.PutSession(s)
	})
}

func BenchmarkAppendAndUpdateSession(b *testing.B) {
	st := openBench(b)
	const key = "agent:main:main"
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s1", Kind: domain.KindMain})
	})
	if err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if err := appendAndUpdate(st, b, key, i); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
		i++
	}
	storetest.ReportPercentiles(b, durs)
}

func BenchmarkAppendConcurrent(b *testing.B) {
	st := openBench(b)
	const sessions = 64
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		for i := range sessions {
			if err := tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main", SessionID: "s1", Kind: domain.KindOther}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.SetParallelism(8)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprintf("agent:main:s%d", next.Add(1)%sessions)
		i := 0
		for pb.Next() {
			if err := appendAndUpdate(st, b, key, i); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "updates/s")
}
