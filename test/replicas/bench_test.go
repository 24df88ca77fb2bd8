package replicas

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// BenchmarkWakeAcrossReplicas measures how long after a run ends on one
// replica a waiter on another returns: two engines in this process (two
// state dirs) on one database; each iteration waits on the run from both,
// and the latency is the remote waiter's return minus the local one's
// (the local waiter wakes right after the end commits). Metrics: p50, p95,
// p99 in ms.
func BenchmarkWakeAcrossReplicas(b *testing.B) {
	url := testkit.Postgres(b)
	open := func(name string) *app.App {
		dir := filepath.Join(b.TempDir(), name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		cfgPath := filepath.Join(dir, "switchboard.json5")
		if err := os.WriteFile(cfgPath, fmt.Appendf(nil, replicaConfig, url, 15, 64), 0o600); err != nil {
			b.Fatal(err)
		}
		a, err := app.Open(context.Background(), app.Options{StateDir: dir, ConfigPath: cfgPath, Owner: "bench",
			Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			a.Close(ctx)
		})
		return a
	}
	local, remote := open("a"), open("b")
	op := api.Operator()
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		res, err := local.Engine.Chat(ctx, op, api.ChatRequest{SessionKey: fmt.Sprintf("agent:main:wake%d", i%8), Message: "quick"})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		var tLocal, tRemote time.Time
		wait := func(a *app.App, at *time.Time) {
			defer wg.Done()
			r, err := a.Engine.WaitRun(ctx, op, api.WaitRequest{RunID: res.Run.ID, Timeout: 20 * time.Second})
			*at = time.Now()
			if err != nil || r.Status != "ok" {
				b.Errorf("wait: %+v %v", r, err)
			}
		}
		wg.Add(2)
		go wait(local, &tLocal)
		go wait(remote, &tRemote)
		wg.Wait()
		lat = append(lat, max(tRemote.Sub(tLocal), 0))
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkThroughput runs b.N chat turns (the script model's instant
// echo) on 30 sessions through 1, 2 and 3 gateway processes on one
// database, each session's turns one after another through the replicas
// in turn, and reports runs per second from the first submission to the
// last run's end. The benchmark harness's own HTTP client and the
// database share the machine's cores with the gateways.
//
// n=0 is the baseline: one gateway on its SQLite store, same config.
func BenchmarkThroughput(b *testing.B) {
	for _, n := range []int{0, 1, 2, 3} {
		name := fmt.Sprintf("postgres/replicas=%d", n)
		if n == 0 {
			name = "sqlite/one"
		}
		b.Run(name, func(b *testing.B) {
			var gs []*gateway
			if n == 0 {
				cfg := regexp.MustCompile(`(?m)^\s*(store|replicas):.*$`).ReplaceAllString(fmt.Sprintf(replicaConfig, "", 15, 64), "")
				gs, n = []*gateway{startGateway(b, "sqlite", cfg)}, 1
			} else {
				gs = startReplicas(b, n, setup{lease: 15})
			}
			const sessions = 30
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for s := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := s; i < b.N; i += sessions {
						gs[i%n].chat(fmt.Sprintf("agent:main:tp%d", s), fmt.Sprintf("m%d", i))
					}
				}()
			}
			wg.Wait()
			waitIdle(b, gs[0], 5*time.Minute)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "runs/s")
		})
	}
}
