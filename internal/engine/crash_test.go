package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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
func crashChild(mode, dir string) int {
	e, _, err := openEngine(dir, crashConfig(5000), mode == "spawn", nil)
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
					res, err := e.chat(ctx, ChatRequest{SessionKey: fmt.Sprintf("agent:main:s%d", i%200), Message: fmt.Sprintf("work %d", i)})
					mu.Lock()
					if err != nil {
						fmt.Println("ERR", err)
						failed = true
					} else {
						fmt.Println("ACK", res.Run.ID)
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
		res, err := e.spawn(ctx, Requester{}, SpawnParams{Task: "do it"})
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
// killAfter > 0, that long after the first ACK).
func runChild(t *testing.T, mode, dir string, killAfter time.Duration) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+mode, "SWITCHBOARD_CRASH_DIR="+dir)
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
				acks = append(acks, strings.TrimPrefix(l, "ACK "))
				if killAfter > 0 && timer == nil {
					timer = time.After(killAfter)
				}
			case l == "READY":
				if killAfter == 0 {
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
	// killed as soon as the last one is acknowledged: 100 are running (the
	// lane limit) and the rest queued. Every one completes after the
	// restart, exactly once.
	acks := runChild(t, "runs", dir, 0)
	if len(acks) != 1000 {
		t.Fatalf("acknowledged runs = %d, want 1000", len(acks))
	}
	e, st, err := openEngine(dir, crashConfig(1), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close(context.Background()); st.Close() }()
	ctx := context.Background()
	retried, ok := 0, 0
	status := map[string]domain.RunStatus{}
	sessions := map[string]bool{}
	for _, id := range acks {
		r, err := e.waitRun(ctx, id, 60*time.Second)
		if err != nil {
			t.Fatalf("acknowledged run %s: %v", id, err)
		}
		// The runs in their model call when the process died had run no
		// tool call: the crash rule queues them again (attempt 2).
		if r.Status != domain.RunOK {
			t.Fatalf("run %s ended %s %q", id, r.Status, r.Error)
		}
		ok++
		if r.Attempt == 2 {
			retried++
		}
		status[id] = r.Status
		sessions[r.SessionKey] = true
	}
	users, replies := map[string]int{}, map[string]int{}
	for key := range sessions {
		msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			switch m.Role {
			case domain.RoleUser:
				users[m.RunID]++
			case domain.RoleAssistant:
				replies[m.RunID]++
			}
		}
	}
	for id, st := range status {
		if users[id] > 1 || replies[id] > 1 {
			t.Fatalf("run %s executed twice: %d user, %d assistant messages", id, users[id], replies[id])
		}
		if st == domain.RunOK && (users[id] != 1 || replies[id] != 1) {
			t.Fatalf("run %s is ok but its transcript has %d user / %d assistant messages", id, users[id], replies[id])
		}
	}
	t.Logf("%d acknowledged runs: %d ok, %d of them re-queued by the crash rule", len(acks), ok, retried)
	if retried == 0 {
		t.Fatalf("want the runs in flight at the kill re-queued as attempt 2 (ok %d, retried %d)", ok, retried)
	}
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
				rows, _ := st.ListSessions(context.Background(), domain.SessionQuery{OnlyArchived: true})
				return len(rows) == 1
			})
			res, _ := e.listSessions(context.Background(), Requester{Operator: true}, ListParams{})
			for _, r := range res.Sessions {
				if strings.Contains(r.Key, ":subagent:") {
					t.Fatalf("archived child still listed")
				}
			}
		}
		_ = e.Close(context.Background())
		st.Close()
	}
}
