package engine

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/script"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"go.uber.org/goleak"
)

// The crash tests re-run this test binary as a child process that runs an
// engine, SIGKILL it mid-work, and check what a restarted engine finds.
const crashEnv = "SWITCHBOARD_CRASH_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(crashEnv); mode != "" {
		os.Exit(crashChild(mode, os.Getenv("SWITCHBOARD_CRASH_DIR")))
	}
	goleak.VerifyTestMain(m)
}

// crashConfig's model takes workDelay to answer "work" messages.
func crashConfig(workDelay int) *config.Config {
	c := testConfig()
	c.Runtime.Lanes = config.LaneLimits{Main: 100, Nested: 100, Subagent: 100}
	c.Agents.Defaults.Subagents.ArchiveAfterMinutes = 30
	c.Models.Providers = map[string]config.ProviderConfig{"script": {Rules: []config.ScriptRule{
		{When: config.ScriptWhen{Message: "^work"}, Reply: str("done"), DelayMs: workDelay},
		{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("child result")},
	}}}
	return c
}

func openEngine(dir string, cfg *config.Config, hold bool, now func() time.Time) (*Engine, *sqlite.Store, error) {
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		return nil, nil, err
	}
	m, err := script.New(cfg.Models.Providers["script"].Rules, time.Now)
	if err != nil {
		return nil, nil, err
	}
	e, err := New(Options{Config: cfg, Store: st, Models: scriptModels{m}, StateDir: dir, HoldDeliveries: hold, Now: now, MaintenanceInterval: 20 * time.Millisecond})
	if err != nil {
		return nil, nil, err
	}
	return e, st, e.Start(context.Background())
}

// crashChild runs until killed, printing what it has acknowledged.
// SWITCHBOARD_CRASH_DELAY_MS sets its model's delay (default 5 s).
func crashChild(mode, dir string) int {
	delay := 5000
	if d, err := strconv.Atoi(os.Getenv("SWITCHBOARD_CRASH_DELAY_MS")); err == nil {
		delay = d
	}
	e, _, err := openEngine(dir, crashConfig(delay), mode == "spawn", nil)
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	ctx := context.Background()
	switch mode {
	case "runs":
		// Ten submitters at once, so the store's group commit batches them.
		var mu sync.Mutex
		var wg sync.WaitGroup
		failed := false
		for w := 0; w < 10; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w; i < 1000; i += 10 {
					res, err := e.chat(ctx, api.ChatRequest{SessionKey: fmt.Sprintf("agent:main:s%d", i%200), Message: fmt.Sprintf("work %d", i)})
					mu.Lock()
					if err != nil {
						fmt.Println("ERR", err)
						failed = true
					} else {
						fmt.Println("ACK", res.Run.ID, i)
					}
					mu.Unlock()
				}
			}(w)
		}
		wg.Wait()
		if failed {
			return 1
		}
	case "spawn":
		res, err := e.spawn(ctx, Requester{}, api.SpawnRequest{Task: "do it"})
		if err != nil {
			fmt.Println("ERR", err)
			return 1
		}
		if _, err := e.waitRun(ctx, res.RunID, 10*time.Second); err != nil {
			fmt.Println("ERR", err)
			return 1
		}
		fmt.Println("ACK", res.RunID)
	}
	fmt.Println("READY")
	select {} // wait for SIGKILL
}

// runChild starts the child and kills it once it printed READY (or, with
// killAfter > 0, that long after the first ACK, wherever it is). It
// returns the acknowledged run ids; env is added to the child's.
func runChild(t *testing.T, mode, dir string, killAfter time.Duration, env ...string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), crashEnv+"="+mode, "SWITCHBOARD_CRASH_DIR="+dir), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acks []string
	var timer <-chan time.Time
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(60 * time.Second)
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("child exited early (acks %d)", len(acks))
			}
			switch {
			case strings.HasPrefix(l, "ACK "):
				acks = append(acks, strings.Fields(l)[1])
				if killAfter > 0 && timer == nil {
					timer = time.After(killAfter)
				}
			case l == "READY":
				if killAfter == 0 {
					break loop
				}
				if timer == nil { // READY without an ACK: kill now
					break loop
				}
			case strings.HasPrefix(l, "ERR"):
				t.Fatalf("child: %s", l)
			}
		case <-timer:
			break loop
		case <-deadline:
			t.Fatalf("child did not get ready")
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	go func() {
		for range lines {
		}
	}()
	return acks
}

func TestCrashWithRunsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	dir := t.TempDir()
	// The child acknowledges 1,000 runs whose model takes 5 s, and is
	// killed as soon as the last one is acknowledged: up to 100 are
	// running (the lane limit) and the rest queued. Every one completes
	// after the restart, exactly once.
	acks := runChild(t, "runs", dir, 0)
	if len(acks) != 1000 {
		t.Fatalf("acknowledged runs = %d, want 1000", len(acks))
	}
	got := checkCrashRule(t, dir, acks)
	if got.running == 0 || got.running > 100 {
		t.Fatalf("%d runs running at the kill, want 1..100 (the lane limit)", got.running)
	}
}

// TestCrashAtRandomPoints kills the child at random moments while it
// submits runs whose model answers after a short random delay, so the kill
// lands anywhere: in a submit, a claim, a model call or a run's commit.
// The crash rule holds wherever it lands. SWITCHBOARD_CRASH_SEED repeats a
// failing seed.
func TestCrashAtRandomPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	seed := time.Now().UnixNano()
	if s, err := strconv.ParseInt(os.Getenv("SWITCHBOARD_CRASH_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (SWITCHBOARD_CRASH_SEED=%d repeats it)", seed, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for round := 0; round < 3; round++ {
		delay := []int{0, 5, 50, 400}[rng.IntN(4)]
		killAfter := time.Duration(1+rng.IntN(1500)) * time.Millisecond
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			dir := t.TempDir()
			acks := runChild(t, "runs", dir, killAfter, fmt.Sprintf("SWITCHBOARD_CRASH_DELAY_MS=%d", delay))
			got := checkCrashRule(t, dir, acks)
			t.Logf("model delay %d ms, killed %v after the first ack: %d acknowledged, %d runs in the store, %d running and %d queued at the kill",
				delay, killAfter, len(acks), got.runs, got.running, got.queued)
		})
	}
}

// crashOutcome is what checkCrashRule found.
type crashOutcome struct{ runs, running, queued int }

// checkCrashRule reads the store a killed "runs" child left, restarts an
// engine on it and checks what the crash rule (docs/design.md#the-crash-rule) predicts for
// runs that execute no tool call: every run left running is queued again
// once (attempt 2) and none is aborted; queued runs resume; every run —
// each acknowledged one, and any committed but not yet acknowledged —
// ends ok with its user message and its reply stored exactly once.
func checkCrashRule(t *testing.T, dir string, acks []string) crashOutcome {
	t.Helper()
	ctx := context.Background()
	st0, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := st0.ListRuns(ctx, domain.RunQuery{})
	st0.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out crashOutcome
	wasRunning := map[string]bool{}
	for _, r := range before {
		switch r.Status {
		case domain.RunRunning:
			wasRunning[r.ID] = true
			out.running++
		case domain.RunQueued:
			out.queued++
		}
	}
	out.runs = len(before)

	e, st, err := openEngine(dir, crashConfig(1), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close(context.Background()); st.Close() }()
	if rep := e.StartReport(); rep.Requeued != out.running || rep.Aborted != 0 || rep.Resumed != out.running+out.queued {
		t.Fatalf("start report = %+v, want %d requeued, 0 aborted, %d resumed", rep.StartReport, out.running, out.running+out.queued)
	}
	acked := map[string]bool{}
	for _, id := range acks {
		acked[id] = true
	}
	ended := map[string]domain.Run{}
	for _, r := range before {
		got, err := e.waitRun(ctx, r.ID, 60*time.Second)
		if err != nil {
			t.Fatalf("run %s: %v", r.ID, err)
		}
		if got.Status != domain.RunOK {
			t.Fatalf("run %s (acknowledged %v, running at the kill %v) ended %s %q", r.ID, acked[r.ID], wasRunning[r.ID], got.Status, got.Error)
		}
		if want := map[bool]int{true: 2, false: 1}[wasRunning[r.ID]]; max(got.Attempt, 1) != want {
			t.Fatalf("run %s (running at the kill %v) ended on attempt %d, want %d", r.ID, wasRunning[r.ID], got.Attempt, want)
		}
		ended[r.ID] = got
	}
	for id := range acked {
		if _, ok := ended[id]; !ok {
			t.Fatalf("acknowledged run %s is not in the store", id)
		}
	}
	users, replies := map[string][]string{}, map[string]int{}
	sessions := map[string]bool{}
	for _, r := range ended {
		sessions[r.SessionKey] = true
	}
	for key := range sessions {
		msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			switch m.Role {
			case domain.RoleUser:
				users[m.RunID] = append(users[m.RunID], m.Content.Text())
			case domain.RoleAssistant:
				replies[m.RunID]++
			}
		}
	}
	for id, r := range ended {
		if len(users[id]) != 1 || !strings.HasPrefix(users[id][0], "work ") || replies[id] != 1 || r.Reply != "done" {
			t.Fatalf("run %s: user messages %q, %d replies, reply %q; want its message and one reply \"done\"", id, users[id], replies[id], r.Reply)
		}
	}
	return out
}

func TestCrashBetweenChildEndAndAnnounce(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	dir := t.TempDir()
	acks := runChild(t, "spawn", dir, 0)
	if len(acks) != 1 {
		t.Fatalf("acks = %v", acks)
	}
	// Restart twice, the second time two hours later: exactly one announce,
	// and the archive that came due while the process was down happens.
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	for i, now := range []func() time.Time{nil, later} {
		e, st, err := openEngine(dir, crashConfig(1), false, now)
		if err != nil {
			t.Fatal(err)
		}
		h := &harness{t: t, e: e, st: st, dir: dir}
		h.waitFor("announce delivered", func() bool {
			items := outboxOf(h, domain.OutboxSubagentAnnounce)
			return len(items) == 1 && items[0].Status == domain.OutboxDelivered
		})
		h.waitFor("requester turn", func() bool {
			runs := runsOf(h, "agent:main:main", domain.RunKindInbound)
			return len(runs) == 1 && domain.RunTerminal(runs[0].Status)
		})
		if n := len(announces(h, "main")); n != 1 {
			t.Fatalf("restart %d: %d announces, want exactly 1", i, n)
		}
		if i == 1 {
			h.waitFor("archive after restart", func() bool {
				rows, err := st.ListSessions(context.Background(), domain.SessionQuery{OnlyArchived: true})
				if err != nil {
					t.Fatal(err)
				}
				return len(rows) == 1
			})
			res, err := e.listSessions(context.Background(), Requester{Operator: true}, api.ListRequest{})
			if err != nil {
				t.Fatalf("list sessions: %v", err)
			}
			mainListed := false
			for _, r := range res.Sessions {
				if strings.Contains(r.Key, ":subagent:") {
					t.Fatalf("archived child still listed")
				}
				mainListed = mainListed || r.Key == "main" || r.Key == "agent:main:main"
			}
			if !mainListed {
				t.Fatalf("list = %+v, want the requester's main session (a list that shows nothing proves nothing)", res.Sessions)
			}
		}
		_ = e.Close(context.Background())
		st.Close()
	}
}
