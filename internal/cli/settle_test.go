package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

func TestSettleShowsProgress(t *testing.T) {
	rules, err := demoRules()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := demoConfig(rules)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: t.Context(), getenv: func(string) string { return "" }, stderr: io.Discard}
	eng, closeEngine, err := openDemoEngine(t.Context(), t.TempDir(), cfg, e)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := closeEngine(); err != nil {
			t.Error(err)
		}
	}()
	if _, err := eng.Chat(t.Context(), api.Operator(), api.ChatRequest{SessionKey: "main", Message: "ask research about queues"}); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := settle(ctx, eng, &progress); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "progress", progress.String(), "waiting for follow-up work to settle",
		"⋯ send run on agent:main:research started", "✓ send run on agent:main:research: ok", "✓ announce run on agent:main:research: ok")
}

// TestInterruptWhileSettling: Ctrl-C while an in-process command waits for
// its run ends the command; the run is recorded as aborted, not lost.
func TestInterruptWhileSettling(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{ models: { providers: { script: { rules: [ { when: { message: "slow" }, reply: "late", delayMs: 60000 } ] } } } }`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan result, 1)
	go func() {
		var errb bytes.Buffer
		code := Main(ctx, []string{"chat", "main", "slow", "--wait", "0"}, func(k string) string { return c.env[k] }, strings.NewReader(""), pw, &errb)
		pw.Close()
		done <- result{stderr: errb.String(), code: code}
	}()
	runID, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no run id printed: %v", err)
	}
	go io.Copy(io.Discard, pr)
	runID = strings.TrimSpace(runID)
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("chat did not stop after the interrupt")
	}
	if r.code != exitError || !strings.Contains(r.stderr, "interrupted") {
		t.Fatalf("interrupted chat: exit %d, stderr %q", r.code, r.stderr)
	}
	// Read the store without starting an engine: the run is either still
	// queued (interrupted before it started) or recorded as ended, never
	// left "running".
	run := storedRun(t, c, runID)
	if run.Status != domain.RunQueued && (run.Status != domain.RunError || run.Error == "") {
		t.Fatalf("interrupted run = %s %q, want queued, or error with a reason", run.Status, run.Error)
	}
}

// TestInterruptWhileWaitingForTheReply: SIGTERM while `send` waits for its
// reply (before any settling) says the command was interrupted and what
// became of the run — it said only "context canceled" — and the run is
// queued again, not lost.
func TestInterruptWhileWaitingForTheReply(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(`{ models: { providers: { script: { rules: [ { when: { message: "slow" }, reply: "late", delayMs: 60000 } ] } } } }`)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	logs := newLogLines()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"send", "agent:main:q", "slow", "--log-format", "json", "--log-level", "info"},
			func(k string) string { return c.env[k] }, strings.NewReader(""), io.Discard, logs)
	}()
	sent, _ := logs.wait(t, 0, "sessions_send")
	runID, _ := sent["run"].(string)
	cancel(stopSignal{syscall.SIGTERM})
	var code int
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("send did not stop after SIGTERM")
	}
	logs.mu.Lock()
	stderr := strings.Join(logs.raw, "\n") + logs.buf.String()
	logs.mu.Unlock()
	if code != exitError || !strings.Contains(stderr, "switchboard: interrupted by signal terminated: a run in flight") || strings.Contains(stderr, "context canceled") {
		t.Fatalf("interrupted send: exit %d, stderr:\n%s", code, stderr)
	}
	run := storedRun(t, c, runID)
	if run.Status != domain.RunQueued {
		t.Fatalf("interrupted run = %s %q, want queued (no tool call had run)", run.Status, run.Error)
	}
}

// storedRun reads run id from c's store without starting an engine.
func storedRun(t *testing.T, c *cli, id string) domain.Run {
	t.Helper()
	st, err := sqlite.Open(t.Context(), app.DBPath(c.stateDir()), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.GetRun(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
