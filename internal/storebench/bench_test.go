package storebench

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/openclawimport"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// importedStore returns a store holding a small generated OpenClaw state.
func importedStore(t *testing.T) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	state := t.TempDir()
	if err := openclawimport.Generate(state, 40, 6, 7); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := openclawimport.Import(ctx, st, state, openclawimport.Options{}); err != nil {
		t.Fatal(err)
	}
	// One transcript longer than the rest, for historyLast50Big to find.
	err = st.Update(ctx, func(tx domain.Tx) error {
		s, err := tx.GetSession("agent:work:main")
		if err != nil {
			return err
		}
		msgs := make([]domain.Message, 60)
		for i := range msgs {
			msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent("more"), Timestamp: int64(i + 1)}
		}
		_, err = tx.AppendMessages(s.Key, s.SessionID, msgs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRun(t *testing.T) {
	ctx := context.Background()
	st := importedStore(t)
	before, err := st.GetSession(ctx, "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if key, err := biggest(ctx, st, rows); err != nil || key != "agent:work:main" {
		t.Errorf("biggest = %s, %v; want agent:work:main", key, err)
	}

	rep, err := Run(ctx, st, Options{Iterations: 3, ListAllIterations: 2, ConcurrentRounds: 2})
	if err != nil {
		t.Fatal(err)
	}

	// The JSON keys are a contract with the CLI's --out file.
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	wantKeys := []string{"disk", "historyLast50Big", "listActive60Limit200", "listAll", "memMB",
		"updateEntryConcurrent64", "updateEntryConcurrent8", "updateEntrySequential"}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("report keys (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(top["memMB"]), `"rss"`) || !strings.Contains(string(top["memMB"]), `"peak"`) ||
		!strings.Contains(string(top["listAll"]), `"p95"`) {
		t.Errorf("nested keys: memMB %s, listAll %s", top["memMB"], top["listAll"])
	}

	for name, tt := range map[string]struct {
		s Stat
		n int
	}{
		"listActive60Limit200":    {rep.ListActive60Limit200, 3},
		"listAll":                 {rep.ListAll, 2},
		"historyLast50Big":        {rep.HistoryLast50Big, 3},
		"updateEntrySequential":   {rep.UpdateEntrySequential, 3},
		"updateEntryConcurrent8":  {rep.UpdateEntryConcurrent8, 16},
		"updateEntryConcurrent64": {rep.UpdateEntryConcurrent64, 128},
	} {
		s := tt.s
		if s.N != tt.n || s.Min <= 0 || s.Min > s.P50 || s.P50 > s.P95 || s.P95 > s.Max || s.Mean < s.Min || s.Mean > s.Max || s.Max > 10_000 {
			t.Errorf("%s = %+v, want n=%d and 0 < min <= p50 <= p95 <= max", name, s, tt.n)
		}
	}
	if runtime.GOOS == "linux" && (rep.MemMB.RSS <= 0 || rep.MemMB.Peak < rep.MemMB.RSS || rep.MemMB.Peak > 1<<20) {
		t.Errorf("memMB = %+v", rep.MemMB)
	}
	if rep.Disk < 4096 || rep.Disk > 1<<30 {
		t.Errorf("disk = %d bytes", rep.Disk)
	}

	// The updates really wrote.
	after, err := st.GetSession(ctx, "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	if after.TotalTokens <= before.TotalTokens || after.UpdatedAt < before.UpdatedAt {
		t.Errorf("row not updated: before %d tokens, after %d", before.TotalTokens, after.TotalTokens)
	}
}

func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "empty.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tests := []struct {
		name   string
		opts   Options
		errSub string
	}{
		{"empty store", Options{Iterations: 1}, "the store has no sessions"},
		{"negative iterations", Options{Iterations: -1}, "Iterations is -1, want 0..100000"},
		{"huge rounds", Options{ConcurrentRounds: maxIterations + 1}, "ConcurrentRounds is 100001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Run(ctx, st, tt.opts); err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Fatalf("err = %v, want %q", err, tt.errSub)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cancelled, st, Options{}); err == nil {
		t.Error("Run with a cancelled context succeeded")
	}
}

func TestSummarize(t *testing.T) {
	var samples []time.Duration
	for i := 20; i >= 1; i-- {
		samples = append(samples, time.Duration(i)*time.Millisecond)
	}
	want := Stat{N: 20, Min: 1, P50: 10, P95: 19, Max: 20, Mean: 10.5}
	if diff := cmp.Diff(want, summarize(samples)); diff != "" {
		t.Errorf("summarize (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stat{}, summarize(nil)); diff != "" {
		t.Errorf("summarize(nil) (-want +got):\n%s", diff)
	}
	one := summarize([]time.Duration{3 * time.Millisecond})
	if one.P50 != 3 || one.P95 != 3 || one.N != 1 {
		t.Errorf("one sample: %+v", one)
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tswitchboard\nVmPeak:\t  900000 kB\nVmHWM:\t   204800 kB\nVmRSS:\t   102400 kB\nThreads:\t8\n"
	if diff := cmp.Diff(Mem{RSS: 100, Peak: 200}, parseStatus([]byte(status))); diff != "" {
		t.Errorf("parseStatus (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Mem{}, parseStatus([]byte("garbage\nVmRSS:\n"))); diff != "" {
		t.Errorf("garbage (-want +got):\n%s", diff)
	}
}
