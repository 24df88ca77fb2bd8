package openclawimport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

func TestGenerateThenImport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const sessions, perSession = 200, 7
	if err := Generate(dir, sessions, perSession, 42); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	sum, err := Import(ctx, st, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Agents: 2, Sessions: sessions, Messages: sessions * perSession, Skipped: map[string]int{}, LargestMessages: perSession}
	if diff := cmp.Diff(want, sum, cmp.AllowUnexported(Summary{}), cmpopts.IgnoreFields(Summary{}, "Largest")); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}

	kinds := map[string]int{}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	recent := 0
	for _, r := range rows {
		kinds[r.AgentID+"/"+r.Kind]++
		if r.Kind == domain.KindOther && strings.Contains(r.Key, ":subagent:") && r.SpawnedBy != "agent:"+r.AgentID+":main" {
			t.Errorf("subagent %s spawnedBy %q", r.Key, r.SpawnedBy)
		}
		if r.UpdatedAt >= time.Now().Add(-time.Hour).UnixMilli() {
			recent++
		}
	}
	for _, k := range []string{"main/main", "main/group", "main/cron", "main/other", "work/main", "work/group", "work/cron", "work/other"} {
		if kinds[k] == 0 {
			t.Errorf("no %s sessions; got %v", k, kinds)
		}
	}
	if recent == 0 || recent == len(rows) {
		t.Errorf("%d of %d sessions updated in the last hour", recent, len(rows))
	}

	// Some transcripts carry an abandoned branch the import left out.
	branched := 0
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		_, entries, st, err := transcript.ReadFile(p)
		if err != nil || st.Skipped > 0 {
			t.Errorf("%s: %v %+v", p, err, st)
		}
		if len(entries) > perSession {
			branched++
		}
		if n := len(transcript.ActiveBranch(entries)); n != perSession {
			t.Errorf("%s: active branch has %d messages", p, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if branched == 0 {
		t.Error("no transcript has an abandoned branch")
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	keysOf := func(seed int64) map[string]string {
		dir := t.TempDir()
		if err := Generate(dir, 50, 3, seed); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, agent := range []string{genMain, genWork} {
			data, err := os.ReadFile(filepath.Join(dir, "agents", agent, "sessions", "sessions.json"))
			if err != nil {
				t.Fatal(err)
			}
			var idx map[string]struct{ SessionID string }
			if err := json.Unmarshal(data, &idx); err != nil {
				t.Fatal(err)
			}
			for k, e := range idx {
				out[k] = e.SessionID
			}
		}
		return out
	}
	a, b, c := keysOf(1), keysOf(1), keysOf(2)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different output (-a +b):\n%s", diff)
	}
	if cmp.Equal(a, c) {
		t.Error("different seeds, same output")
	}
	if len(a) != 50 {
		t.Errorf("%d sessions, want 50", len(a))
	}
}

func TestGenerateRejectsBadSizes(t *testing.T) {
	for _, tt := range []struct {
		sessions, per int
		errSub        string
	}{
		{-1, 1, "sessions is -1"},
		{1, -2, "messagesPerSession is -2"},
		{maxGenSessions + 1, 1, "want 0..10000000"},
	} {
		if err := Generate(t.TempDir(), tt.sessions, tt.per, 1); err == nil || !strings.Contains(err.Error(), tt.errSub) {
			t.Errorf("Generate(%d, %d) = %v, want %q", tt.sessions, tt.per, err, tt.errSub)
		}
	}
}

// BenchmarkImport imports 100,000 messages (1,000 sessions of 100) into a
// fresh store per iteration and reports ns per message.
func BenchmarkImport(b *testing.B) {
	const sessions, perSession = 1000, 100
	dir := b.TempDir()
	if err := Generate(dir, sessions, perSession, 1); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var total, cpu time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		st := openStore(b)
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime()
		sum, err := Import(ctx, st, dir, Options{})
		total += time.Since(start)
		cpu += cpuTime() - cpuStart
		if err != nil {
			b.Fatal(err)
		}
		if sum.Messages != sessions*perSession {
			b.Fatalf("imported %d messages", sum.Messages)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	msgs := float64(b.N) * sessions * perSession
	b.ReportMetric(float64(total.Nanoseconds())/msgs, "ns/msg")
	b.ReportMetric(msgs/total.Seconds(), "msgs/s")
	// On a shared machine CPU time per message says more than wall time.
	b.ReportMetric(float64(cpu.Nanoseconds())/msgs, "cpu-ns/msg")
}

// cpuTime is the CPU time the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGenerate writes 100,000 sessions of 2 messages.
func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if err := Generate(dir, 100_000, 2, 1); err != nil {
			b.Fatal(err)
		}
	}
}
