package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// Benchmarks run only with -bench; their fixtures are built once per
// benchmark (b.Loop runs the body's setup once) with bulk inserts in one
// Update. Run them with:
//
//	go test -run '^$' -bench . -benchtime 2s ./internal/store/sqlite

const benchNow = int64(1_750_000_000_000)

func openBench(b *testing.B) *Store {
	b.Helper()
	st, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	return st
}

// fillSessions puts n sessions in st: 20 agents, one update every 10 s
// going back from benchNow (so 360 in the last hour), 10% archived.
func fillSessions(b *testing.B, st *Store, n int) {
	b.Helper()
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		for i := range n {
			s := domain.Session{
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
				s.ArchivedAt = benchNow
			}
			if err := tx.PutSession(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkListActive60Limit200 lists sessions updated in the last hour,
// 200 at most, out of 100,000 rows (10% archived).
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

// BenchmarkListAll lists every one of 100,000 sessions (ListSessions
// without a limit; 90,000 unarchived). It then starts a fresh process (the
// test binary again, see listAllChild) that opens the store, lists it once
// and reports its resident memory as rss-MB.
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
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(b.Context(), os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), listAllChildEnv+"="+st.Path())
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("list-all child: %v", err)
	}
	var res listAllResult
	if err := json.Unmarshal(out, &res); err != nil || res.Rows != 90_000 {
		b.Fatalf("list-all child said %q (%v)", out, err)
	}
	b.ReportMetric(res.RSSMB, "child-rss-MB")
	b.ReportMetric(float64(res.Nanos), "child-list-ns")
}

// listAllChildEnv, set to a database path, turns the test binary into the
// child of BenchmarkListAll.
const listAllChildEnv = "SWITCHBOARD_SQLITE_LISTALL_CHILD"

type listAllResult struct {
	Rows  int     `json:"rows"`
	Nanos int64   `json:"nanos"`
	RSSMB float64 `json:"rssMB"`
}

// listAllChild opens the store at path, lists every session once and
// prints a listAllResult: the time the listing took and VmRSS right after.
func listAllChild(path string) int {
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	start := time.Now()
	rows, err := st.ListSessions(ctx, domain.SessionQuery{})
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	res := listAllResult{Rows: len(rows), Nanos: elapsed.Nanoseconds()}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var n float64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n)
			res.RSSMB = n / 1024
		}
	}
	runtime.KeepAlive(rows)
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// benchMessages returns a realistic mix: user text, an assistant tool call,
// a tool result of about 1 KB, and an assistant answer.
func benchMessages(i int) []domain.Message {
	ts := benchNow + int64(i)
	return []domain.Message{
		{Role: domain.RoleUser, Timestamp: ts, Content: domain.TextContent(strings.Repeat("please look into it ", 10))},
		{Role: domain.RoleAssistant, Timestamp: ts, Content: domain.BlockContent(domain.Block{
			Type: domain.BlockToolCall, ID: fmt.Sprintf("call_%d", i), Name: "sessions_list",
			Arguments: json.RawMessage(`{"limit":20,"kinds":["main"]}`),
		}), Usage: &domain.Usage{Input: 1000, Output: 50, TotalTokens: 1050}, StopReason: domain.StopReasonToolUse},
		{Role: domain.RoleToolResult, Timestamp: ts, ToolCallID: fmt.Sprintf("call_%d", i), ToolName: "sessions_list",
			IsError: domain.Bool(false), Content: domain.TextContent(strings.Repeat(`{"key":"agent:main:main"},`, 40))},
		{Role: domain.RoleAssistant, Timestamp: ts, Content: domain.BlockContent(domain.TextBlock(strings.Repeat("here it is ", 20))),
			StopReason: domain.StopReasonStop},
	}
}

// BenchmarkHistoryLast50 reads the newest 50 messages of a session with
// 100,000 messages.
func BenchmarkHistoryLast50(b *testing.B) {
	st := openBench(b)
	const key, sid, n = "agent:main:main", "s1", 100_000
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, Kind: domain.KindMain, UpdatedAt: benchNow}); err != nil {
			return err
		}
		var batch []domain.Message
		for i := 0; i < n/4; i++ {
			batch = append(batch, benchMessages(i)...)
			if len(batch) >= 1000 {
				if _, err := tx.AppendMessages(key, sid, batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		_, err := tx.AppendMessages(key, sid, batch)
		return err
	})
	if err != nil {
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

// appendAndUpdate is one message of a run: append it and bump the row.
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

// BenchmarkAppendAndUpdateSession is a single writer appending one message
// and updating its session row per Update.
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

// BenchmarkAppendConcurrent is many writers, each on its own session,
// appending and updating concurrently; group commit batches them.
func BenchmarkAppendConcurrent(b *testing.B) {
	st := openBench(b)
	const sessions = 64
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		for i := range sessions {
			s := domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main", SessionID: "s1", Kind: domain.KindOther}
			if err := tx.PutSession(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.SetParallelism(8) // 8 × GOMAXPROCS writers
	start, cpuStart := time.Now(), cpuTime()
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
	b.ReportMetric(float64((cpuTime()-cpuStart).Nanoseconds())/float64(b.N), "cpu-ns/op")
	s := st.Stats()
	if s.Commits > 0 {
		b.ReportMetric(float64(s.Updates)/float64(s.Commits), "updates/commit")
	}
}

// cpuTime is the CPU time the process used so far; on a shared machine it
// says more about the cost of an operation than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
