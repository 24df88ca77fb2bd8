package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/switchboard-go/switchboard/internal/api"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/store/storecopy"
	"github.com/switchboard-go/switchboard/internal/storebench"
)

func benchCommand() *command {
	return &command{
		name:    "bench",
		summary: "benchmarks",
		subs: []*command{{
			name:    "store",
			summary: "import an OpenClaw state into a fresh store and measure it",
			help: "Imports --openclaw-state into a new SQLite store in a temporary directory (your state dir is not\n" +
				"touched), or into the empty PostgreSQL database --store names, then measures listing, history and\n" +
				"session updates, memory and disk use, and writes the report as JSON to --out (latencies in\n" +
				"milliseconds).",
			example: []string{
				"switchboard bench store --openclaw-state ~/.openclaw --out bench.json",
				"switchboard bench store --openclaw-state ~/.openclaw --store postgres://localhost/sbbench --out pg.json",
			},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				src := fs.String("openclaw-state", "", "the OpenClaw state `DIR` to import")
				out := fs.String("out", "", "write the JSON report to `FILE`")
				store := fs.String("store", "", "measure an empty PostgreSQL database: `postgres://…` (default: a temporary SQLite store)")
				var iterations intFlag
				fs.Var(&iterations, "iterations", "repeat each measured read `N` times (default 50)")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					if *src == "" || *out == "" {
						return e.usagef("--openclaw-state and --out are required")
					}
					n, err := e.limited("iterations", &iterations, benchIterations, storebench.DefaultIterations)
					if err != nil {
						return err
					}
					if *store != "" {
						if _, err := storecopy.ParseEndpoint(*store); err != nil || !strings.HasPrefix(*store, "postgres") {
							return e.usagef("--store must be a postgres:// URL")
						}
					}
					return runBenchStore(e, *src, *out, *store, n)
				}
			},
		}, benchChatCommand(), benchGatewayCommand()},
	}
}

// benchOutput is bench store's report: storebench's keys, plus the import.
type benchOutput struct {
	storebench.Report
	Import benchImport `json:"import"`
	// MirrorDisk is the size in bytes of the JSONL mirror the import
	// wrote beside a SQLite store (transcripts.mirror, on by default);
	// disk is the database alone.
	MirrorDisk int64 `json:"mirrorDisk"`
}

type benchImport struct {
	Sessions int     `json:"sessions"`
	Messages int     `json:"messages"`
	Seconds  float64 `json:"seconds"`
}

func runBenchStore(e *env, src, out, storeURL string, iterations int) (err error) {
	if st, err := os.Stat(src); err != nil {
		return fmt.Errorf("bench store: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("bench store: %s is not a directory", src)
	}
	tmp, err := os.MkdirTemp("", "switchboard-bench-")
	if err != nil {
		return fmt.Errorf("bench store: %w", err)
	}
	defer os.RemoveAll(tmp)
	dbPath := app.DBPath(tmp)
	var st benchStore
	if storeURL != "" {
		dbPath = ""
		pst, err := postgres.Open(e.ctx, storeURL, postgres.Options{})
		if err != nil {
			return fmt.Errorf("bench store: %w", err)
		}
		st = pst
		if c, err := pst.Counts(e.ctx); err != nil || !c.Empty() {
			pst.Close()
			return fmt.Errorf("bench store: --store must name an empty database (%+v, %v)", c, err)
		}
	} else if st, err = sqlite.Open(e.ctx, dbPath, sqlite.Options{}); err != nil {
		return fmt.Errorf("bench store: %w", err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()

	started := time.Now()
	sum, err := importInto(e.ctx, st, tmp, config.Default(), src, e.progress())
	if err != nil {
		return fmt.Errorf("bench store: import %s: %w", src, err)
	}
	imported := time.Since(started)
	fmt.Fprintf(e.stderr, "imported %d sessions and %d messages in %s; measuring…\n", sum.Sessions, sum.Messages, imported.Round(time.Millisecond))
	rep, err := storebench.Run(e.ctx, st, storebench.Options{Iterations: iterations, DBPath: dbPath})
	if err != nil {
		return fmt.Errorf("bench store: %w", err)
	}
	res := benchOutput{Report: rep, Import: benchImport{Sessions: sum.Sessions, Messages: sum.Messages, Seconds: imported.Seconds()}}
	if res.MirrorDisk, err = jsonlBytes(filepath.Join(tmp, "agents")); err != nil {
		return fmt.Errorf("bench store: mirror size: %w", err)
	}
	if err := writeJSONFile(out, res); err != nil {
		return fmt.Errorf("bench store: %w", err)
	}
	if e.json {
		return printJSON(e.stdout, res)
	}
	t := newTable(e.stdout, "OPERATION", "N", "P50 ms", "P95 ms", "MAX ms")
	for _, r := range []struct {
		name string
		s    storebench.Stat
	}{
		{"list active 60m, limit 200", rep.ListActive60Limit200},
		{"list all", rep.ListAll},
		{"history last 50 (biggest)", rep.HistoryLast50Big},
		{"update entry", rep.UpdateEntrySequential},
		{"update entry ×8 concurrent", rep.UpdateEntryConcurrent8},
		{"update entry ×64 concurrent", rep.UpdateEntryConcurrent64},
	} {
		t.row(r.name, fmt.Sprint(r.s.N), fmt.Sprintf("%.3f", r.s.P50), fmt.Sprintf("%.3f", r.s.P95), fmt.Sprintf("%.3f", r.s.Max))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "memory %.1f MiB (peak %.1f), disk %.1f MiB (+ %.1f MiB JSONL mirror); report written to %s\n", rep.MemMB.RSS, rep.MemMB.Peak, float64(rep.Disk)/(1<<20), float64(res.MirrorDisk)/(1<<20), out)
	return err
}

// jsonlBytes sums the sizes of the *.jsonl files under dir (none: 0).
func jsonlBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// benchStore is the store bench store measures.
type benchStore interface {
	domain.Store
	Counts(context.Context) (bulk.Counts, error)
}

// writeJSONFile writes v as indented JSON to path, atomically.
func writeJSONFile(path string, v any) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".bench-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := printJSON(f, v); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// benchIterations bounds --iterations (the benchmark's own knob, not an
// API parameter).
var benchIterations = api.Limit{Name: "iterations", Min: 1, Max: 100_000, Clamp: true}
