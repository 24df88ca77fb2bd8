package sqlite

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// openedStoreEnv names an existing store file; TestOpenedStore measures it.
// openedKeyEnv names the session whose newest 50 messages are read (the
// 100,000-message one of the 1,000,000-session state).
const (
	openedStoreEnv = "SWITCHBOARD_OPENED_STORE"
	openedKeyEnv   = "SWITCHBOARD_OPENED_STORE_KEY"
)

// TestOpenedStore is a measurement, not a check: in a fresh process (the
// test binary) it opens the store named by $SWITCHBOARD_OPENED_STORE, runs
// the listing a dashboard runs (active in the last 60 minutes, limit 200)
// and the newest 50 messages of $SWITCHBOARD_OPENED_STORE_KEY 200 times
// each, reads VmRSS, then lists every session once and reads VmRSS again.
// It prints one JSON line (docs/benchmarks.md, 1,000,000 sessions).
func TestOpenedStore(t *testing.T) {
	path := os.Getenv(openedStoreEnv)
	if path == "" {
		t.Skip("set " + openedStoreEnv + " to a store file to measure it")
	}
	ctx := t.Context()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 200
	type result struct {
		Active60P50Ms, Active60CPUMs   float64
		Active60Rows                   int
		History50P50Ms, History50CPUMs float64
		History50Rows                  int
		RSSAfterActiveMB               float64
		ListAllMs                      float64
		ListAllRows                    int
		RSSAfterListAllMB              float64
	}
	var res result
	p50 := func(op func() int) (p50Ms, cpuMs float64, rows int) {
		durs := make([]time.Duration, 0, n)
		cpu0 := cpuTime()
		for range n {
			start := time.Now()
			rows = op()
			durs = append(durs, time.Since(start))
		}
		slices.Sort(durs)
		return float64(durs[n/2].Microseconds()) / 1000, float64((cpuTime() - cpu0).Microseconds()) / 1000 / n, rows
	}
	res.Active60P50Ms, res.Active60CPUMs, res.Active60Rows = p50(func() int {
		q := domain.SessionQuery{Limit: 200, UpdatedSince: time.Now().Add(-60 * time.Minute).UnixMilli()}
		rows, err := st.ListSessions(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	})
	if key := os.Getenv(openedKeyEnv); key != "" {
		res.History50P50Ms, res.History50CPUMs, res.History50Rows = p50(func() int {
			msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			return len(msgs)
		})
	}
	res.RSSAfterActiveMB = vmRSS(t)
	start := time.Now()
	all, err := st.ListSessions(ctx, domain.SessionQuery{})
	res.ListAllMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		t.Fatal(err)
	}
	res.ListAllRows = len(all)
	res.RSSAfterListAllMB = vmRSS(t)
	runtime.KeepAlive(all)
	out, _ := json.Marshal(res)
	t.Logf("%s", out)
}

func vmRSS(t *testing.T) float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var n float64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n); err != nil {
				t.Fatal(err)
			}
			return n / 1024
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
