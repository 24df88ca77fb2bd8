package openclawimport

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// benchSessions × benchPerSession messages is the size of the SQLite
// import and export benchmarks, as of BenchmarkImport.
const benchSessions, benchPerSession = 1000, 100

// benchStore returns a store holding the generated state (read-only for
// the benchmarks).
func benchStore(b *testing.B) *sqlite.Store {
	b.Helper()
	dir := b.TempDir()
	if err := Generate(dir, benchSessions, benchPerSession, 1); err != nil {
		b.Fatal(err)
	}
	st := openStore(b)
	if _, err := Import(context.Background(), st, dir, Options{}); err != nil {
		b.Fatal(err)
	}
	return st
}

// reportRate reports the wall and CPU time per message of n runs.
func reportRate(b *testing.B, total, cpu time.Duration) {
	msgs := float64(b.N) * benchSessions * benchPerSession
	b.ReportMetric(float64(total.Nanoseconds())/msgs, "ns/msg")
	b.ReportMetric(msgs/total.Seconds(), "msgs/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/msgs, "cpu-ns/msg")
}

// BenchmarkImportSQLite imports 100,000 messages from OpenClaw's SQLite
// layout (an agent database Export wrote) into a fresh store per
// iteration.
func BenchmarkImportSQLite(b *testing.B) {
	ctx := context.Background()
	src := filepath.Join(b.TempDir(), "oc")
	from := benchStore(b)
	if _, err := Export(ctx, from, src, ExportOptions{Layout: LayoutSQLite}); err != nil {
		b.Fatal(err)
	}
	// Its background work (checkpoints) must not count as the import's.
	from.Close()
	var total, cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		st := openStore(b)
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime()
		sum, err := Import(ctx, st, src, Options{})
		total += time.Since(start)
		cpu += cpuTime() - cpuStart
		if err != nil {
			b.Fatal(err)
		}
		if sum.Messages != benchSessions*benchPerSession {
			b.Fatalf("imported %d messages", sum.Messages)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	reportRate(b, total, cpu)
}

// BenchmarkExport exports 100,000 messages to each layout per iteration.
func BenchmarkExport(b *testing.B) {
	ctx := context.Background()
	st := benchStore(b)
	for _, layout := range Layouts {
		b.Run(layout, func(b *testing.B) {
			var total, cpu time.Duration
			for b.Loop() {
				out := filepath.Join(b.TempDir(), "oc")
				start, cpuStart := time.Now(), cpuTime()
				sum, err := Export(ctx, st, out, ExportOptions{Layout: layout})
				total += time.Since(start)
				cpu += cpuTime() - cpuStart
				if err != nil {
					b.Fatal(err)
				}
				if sum.Messages != benchSessions*benchPerSession {
					b.Fatalf("exported %d messages", sum.Messages)
				}
			}
			reportRate(b, total, cpu)
		})
	}
}
