package app

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// One chat turn end to end (message in → run on the script model → reply
// stored → wait returns) in one process, on each store. pgtest makes the
// benchmark's PostgreSQL durable (fsync on every commit), over loopback.
//
//	go test -run '^$' -bench ChatTurn -benchtime 2000x ./internal/app

func BenchmarkChatTurnSQLite(b *testing.B) {
	benchChatTurn(b, config.StoreConfig{Driver: config.StoreSQLite})
}

// BenchmarkChatTurnPostgres runs on $SWITCHBOARD_BENCH_DATABASE_URL when
// set (a database of your own server), else on a pgtest cluster.
func BenchmarkChatTurnPostgres(b *testing.B) {
	url := os.Getenv("SWITCHBOARD_BENCH_DATABASE_URL")
	if url == "" {
		url = pg.Database(b)
	}
	benchChatTurn(b, config.StoreConfig{Driver: config.StorePostgres, URL: url})
}

// walSyncs returns the server's count of WAL flushes to disk (pg_stat_wal,
// PostgreSQL 14+), so a benchmark can report flushes per turn: a number
// the machine's load does not change.
func walSyncs(b *testing.B, url string) int64 {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(context.Background(), `SELECT wal_sync FROM pg_stat_wal`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

func benchChatTurn(b *testing.B, store config.StoreConfig) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Store = store
	off := false
	cfg.Transcripts.Mirror = &off // the store is measured, not the JSONL mirror
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	a, err := Open(ctx, Options{StateDir: b.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close(ctx)
	var durs []time.Duration
	i := 0
	var syncs0 int64
	if store.Driver == config.StorePostgres {
		syncs0 = walSyncs(b, store.URL)
	}
	for b.Loop() {
		start := time.Now()
		res, err := a.Engine.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "c" + strconv.Itoa(i%1000), Message: "hi"})
		if err != nil {
			b.Fatal(err)
		}
		run, err := a.Engine.WaitRun(ctx, api.Operator(), api.WaitRequest{RunID: res.Run.ID, Timeout: 10 * time.Second})
		if err != nil || run.Status != domain.RunOK {
			b.Fatalf("run %s: %v", run.Status, err)
		}
		durs = append(durs, time.Since(start))
		i++
	}
	if store.Driver == config.StorePostgres {
		b.ReportMetric(float64(walSyncs(b, store.URL)-syncs0)/float64(len(durs)), "wal-syncs/turn")
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*99/100].Microseconds())/1000, "p99-ms")
}
