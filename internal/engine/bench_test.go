package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Benchmarks of the engine end to end on a real SQLite store and the
// script model. Numbers and the command are in docs/benchmarks.md.

func benchHarness(b *testing.B, rules []config.ScriptRule, mutate func(*config.Config)) *harness {
	return newHarness(b, rules, mutate)
}

// latencies records per-operation latencies and reports percentiles.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) { l.mu.Lock(); l.d = append(l.d, d); l.mu.Unlock() }

// p50 is the median latency in milliseconds.
func (l *latencies) p50() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	sort.Slice(l.d, func(i, j int) bool { return l.d[i] < l.d[j] })
	return float64(l.d[(len(l.d)-1)/2].Microseconds()) / 1000
}

func (l *latencies) report(b *testing.B) {
	if len(l.d) == 0 {
		return
	}
	sort.Slice(l.d, func(i, j int) bool { return l.d[i] < l.d[j] })
	pct := func(p float64) float64 { return float64(l.d[int(p*float64(len(l.d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkChatTurn measures one chat turn end to end (message in → run →
// reply persisted → wait returns) on sessions with short transcripts.
func BenchmarkChatTurn(b *testing.B) { benchChatTurn(b, 1000) }

// BenchmarkChatTurnLongSession is the same on one session whose transcript
// grows by two messages a turn (the run reads up to 400 as context).
func BenchmarkChatTurnLongSession(b *testing.B) { benchChatTurn(b, 1) }

func benchChatTurn(b *testing.B, sessions int) { benchChatTurnConfig(b, sessions, nil) }

func benchChatTurnConfig(b *testing.B, sessions int, mutate func(*config.Config)) {
	h := benchHarness(b, nil, mutate)
	ctx := context.Background()
	var lat latencies
	b.ResetTimer()
	cpu := startCPU(b)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "agent:main:c" + strconv.Itoa(i%sessions), Message: "hi"})
		if err != nil {
			b.Fatal(err)
		}
		if r, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil || r.Status != domain.RunOK {
			b.Fatalf("run %v %v", r.Status, err)
		}
		lat.add(time.Since(start))
	}
	cpu.report(b)
	lat.report(b)
}

func BenchmarkChatThroughput1000Sessions(b *testing.B) {
	h := benchHarness(b, nil, func(c *config.Config) {
		c.Runtime.Lanes = config.LaneLimits{Main: 1000, Nested: 64, Subagent: 64}
	})
	ctx := context.Background()
	var next atomic.Int64
	b.SetParallelism(64)
	before := h.st.Stats()
	quickBefore := h.e.rt.QuickTurns()
	start := time.Now()
	b.ResetTimer()
	cpu := startCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			res, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "agent:main:s" + strconv.FormatInt(i%1000, 10), Message: "hi"})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.e.waitRun(ctx, res.Run.ID, 30*time.Second); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "turns/s")
	cpu.report(b)
	after := h.st.Stats()
	if c := after.Commits - before.Commits; c > 0 {
		b.ReportMetric(float64(c)/float64(b.N), "commits/turn")
		b.ReportMetric(float64(after.Updates-before.Updates)/float64(c), "updates/commit")
	}
	// The share of turns written in one transaction (runtime quick.go).
	b.ReportMetric(float64(h.e.rt.QuickTurns().Folded-quickBefore.Folded)/float64(b.N), "folded/turn")
}

func BenchmarkSendWithWait(b *testing.B) {
	h := benchHarness(b, []config.ScriptRule{
		rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "ANNOUNCE_SKIP"),
	}, agentVisibility)
	ctx := context.Background()
	var lat latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := h.e.send(ctx, Requester{}, api.SendRequest{SessionKey: "agent:main:target", Message: "hi"})
		if err != nil || res.Status != "ok" {
			b.Fatalf("send %+v %v", res, err)
		}
		lat.add(time.Since(start))
	}
	lat.report(b)
}

// seedSessions writes n sessions with msgs messages each, in bulk.
func seedSessions(b *testing.B, h *harness, n, msgs int) {
	ctx := context.Background()
	now := time.Now().UnixMilli()
	for start := 0; start < n; start += 500 {
		err := h.st.Update(ctx, func(tx domain.Tx) error {
			for i := start; i < start+500 && i < n; i++ {
				key := fmt.Sprintf("agent:main:seed%05d", i)
				sid := domain.NewID()
				if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, Kind: "other", UpdatedAt: now - int64(i)}); err != nil {
					return err
				}
				batch := make([]domain.Message, msgs)
				for j := range batch {
					role := domain.RoleUser
					if j%2 == 1 {
						role = domain.RoleAssistant
					}
					batch[j] = domain.Message{Role: role, Content: domain.TextContent(fmt.Sprintf("message %d of %s", j, key)), Timestamp: now}
				}
				if _, err := tx.AppendMessages(key, sid, batch); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListMessageLimit5Over10k(b *testing.B) { benchListMessageLimit5(b, false) }

// benchListMessageLimit5 lists 200 of 10,000 sessions with their last 5
// messages; encode also encodes each result as every surface does (the MCP
// text content: indented JSON), so the CPU a client waits for is counted
// whole.
func benchListMessageLimit5(b *testing.B, encode bool) {
	h := benchHarness(b, nil, agentVisibility)
	seedSessions(b, h, 10_000, 8)
	ctx := context.Background()
	var lat latencies
	cpu := startCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		out := h.e.callTool(ctx, Requester{}, api.ToolSessionsList, []byte(`{"limit":200,"messageLimit":5}`))
		if out.IsError || out.Payload.(api.ListResult).Count != 200 {
			b.Fatalf("list: %s", out.JSON())
		}
		if encode && len(out.JSON()) < 200*5*20 {
			b.Fatal("short result")
		}
		lat.add(time.Since(start))
	}
	cpu.report(b)
	lat.report(b)
}

func BenchmarkSpawnReturn(b *testing.B) { benchSpawnReturn(b, nil) }

func benchSpawnReturn(b *testing.B, mutate func(*config.Config)) {
	h := benchHarness(b, nil, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 100_000
		c.Agents.Defaults.Subagents.MaxConcurrent = 1000
		if mutate != nil {
			mutate(c)
		}
	})
	ctx := context.Background()
	var lat latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := h.e.spawn(ctx, Requester{}, api.SpawnRequest{Task: "t"}); err != nil {
			b.Fatal(err)
		}
		lat.add(time.Since(start))
	}
	lat.report(b)
}

// BenchmarkThousandChildren spawns 1,000 children at once and checks that
// every one completes and announces exactly once.
func BenchmarkThousandChildren(b *testing.B) {
	for i := 0; i < b.N; i++ {
		h := benchHarness(b, []config.ScriptRule{{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("r"), DelayMs: 50}}, func(c *config.Config) {
			c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 1000
			c.Agents.Defaults.Subagents.MaxConcurrent = 1000
			c.Runtime.Lanes = config.LaneLimits{Main: 64, Nested: 64, Subagent: 1000}
		})
		ctx := context.Background()
		start := time.Now()
		var wg sync.WaitGroup
		for w := 0; w < 20; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 50; j++ {
					if _, err := h.e.spawn(ctx, Requester{}, api.SpawnRequest{Task: "child"}); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		h.waitFor("1000 announces", func() bool {
			items, _ := h.st.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxDelivered}})
			n := 0
			for _, it := range items {
				if it.Kind == domain.OutboxSubagentAnnounce {
					n++
				}
			}
			return n == 1000
		})
		runs, _ := h.st.ListRuns(ctx, domain.RunQuery{SessionKey: "agent:main:main", Kinds: []domain.RunKind{domain.RunKindInbound}})
		seen := map[string]bool{}
		for _, r := range runs {
			if seen[r.RequesterKey] {
				b.Fatalf("child %s announced twice", r.RequesterKey)
			}
			seen[r.RequesterKey] = true
		}
		if len(seen) != 1000 {
			b.Fatalf("%d distinct announces, want 1000", len(seen))
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/1000-children")
	}
}

// BenchmarkTenThousandSlowRuns runs 10,000 runs at once whose model call
// takes 1 s, and reports the peak RSS.
func BenchmarkTenThousandSlowRuns(b *testing.B) {
	for i := 0; i < b.N; i++ {
		h := benchHarness(b, []config.ScriptRule{{When: config.ScriptWhen{Message: "^slow$"}, Reply: str("done"), DelayMs: 1000}}, func(c *config.Config) {
			c.Runtime.Lanes = config.LaneLimits{Main: 10_000, Nested: 64, Subagent: 64}
		})
		ctx := context.Background()
		start := time.Now()
		ids := make([]string, 10_000)
		var wg sync.WaitGroup
		for w := 0; w < 50; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for j := w; j < 10_000; j += 50 {
					res, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "agent:main:r" + strconv.Itoa(j), Message: "slow"})
					if err != nil {
						b.Error(err)
						return
					}
					ids[j] = res.Run.ID
				}
			}(w)
		}
		wg.Wait()
		for _, id := range ids {
			if r, err := h.e.waitRun(ctx, id, 5*time.Minute); err != nil || r.Status != domain.RunOK {
				b.Fatalf("run %s: %v %v", id, r.Status, err)
			}
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/10k-runs")
		b.ReportMetric(peakRSSMB(), "peak-rss-MB")
		runtime.GC()
	}
}

// peakRSSMB reads VmHWM (peak resident set) of this process.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkChatTurnBudgetedDepth3 is a chat turn in a sub-agent session
// three levels deep whose every ancestor has a budget: each model step is
// charged to its own account and rolled up the two levels above, and the
// budgets of the chain are checked before the model call.
func BenchmarkChatTurnBudgetedDepth3(b *testing.B) {
	h := benchHarness(b, nil, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxSpawnDepth = 3
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 100
	})
	ctx := context.Background()
	parent := "agent:main:main"
	for range 3 {
		res, err := h.e.spawn(ctx, Requester{SessionKey: parent}, api.SpawnRequest{Task: "t", Budget: &api.SpawnBudget{Tokens: ptrTo(1e9)}})
		if err != nil {
			b.Fatal(err)
		}
		parent = res.ChildSessionKey
	}
	if err := h.e.Idle(ctx); err != nil {
		b.Fatal(err)
	}
	var lat latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := h.e.chat(ctx, api.ChatRequest{SessionKey: parent, Message: "hi"})
		if err != nil {
			b.Fatal(err)
		}
		if r, err := h.e.waitRun(ctx, res.Run.ID, 10*time.Second); err != nil || r.Status != domain.RunOK {
			b.Fatalf("run %v %v %q", r.Status, err, r.Error)
		}
		lat.add(time.Since(start))
	}
	lat.report(b)
}

func ptrTo[T any](v T) *T { return &v }
