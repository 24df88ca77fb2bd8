package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/gateway"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"github.com/switchboard-go/switchboard/internal/web"
)

// The browser test drives the real UI in a headless Chromium against a
// real gateway (app.Open over a temp state dir, the script model, a token).
// CI sets SWITCHBOARD_BROWSER_TESTS=1 after installing Debian's chromium
// and `npm ci` in internal/web/e2e.

const browserEnv = "SWITCHBOARD_BROWSER_TESTS"

// updateScreenshotsEnv, set to 1, copies the screenshots the scenario took
// (into a temp dir) over docs/screenshots after a passing run.
const updateScreenshotsEnv = "SWITCHBOARD_UPDATE_SCREENSHOTS"

// e2eConfig is the state dir's config: a token-protected gateway and
// script rules that make the scenario's agents talk, spawn and stall.
const e2eConfig = `{
  agents: {
    defaults: { subagents: { maxChildrenPerAgent: 10 } },
    list: [{ id: "main", name: "Main", default: true }],
  },
  models: { providers: { script: { rules: [
    // The main session spawns a sub-agent for "spawn <task>".
    { when: { session: "^agent:main:main$", role: "user", message: "^spawn (.+)$" },
      toolCall: { name: "sessions_spawn", arguments: { task: "$1", label: "$1" } } },
    { when: { session: "^agent:main:main$", role: "toolResult", message: "childSessionKey" },
      reply: "On it: a sub-agent is working on that. I will post its result here." },
    { when: { session: "^agent:main:main$", message: "^Sub-agent finished: ([^\\n]+)" },
      reply: "The sub-agent \"$1\" has reported back (see the announce above)." },
    // Sub-agents: the slow one stalls until cancelled.
    { when: { session: "subagent", message: "slow" }, reply: "finished crawling", delayMs: 120000 },
    { when: { session: "subagent" },
      reply: "Found 3 competitor reports. Pricing is flat across the market; two vendors bundle support." },
    // "stream …" answers in pieces of 6 characters, 120 ms apart.
    { when: { message: "^stream " },
      reply: "Streaming: one two three four five six seven eight nine ten eleven twelve.", chunkChars: 6, chunkMs: 120 },
    // Anything asked "slowly" takes two minutes unless stopped.
    { when: { message: "slowly" }, reply: "done thinking", delayMs: 120000 },
    { when: { message: "(?i)^(hi|hello)" },
      reply: "Hello! I am the main agent. Ask me to \"spawn <task>\" to start a sub-agent." },
  ] } } },
}
`

// seedSessions gives the list realistic neighbours plus many old rows, so
// the page's paging and windowed rendering are exercised.
func seedSessions(ctx context.Context, st domain.Store, now time.Time, bulk int) error {
	ms := now.UnixMilli()
	minute := int64(60_000)
	named := []domain.Session{
		{Key: "agent:main:discord:group:eng-standup", Kind: domain.KindGroup, Channel: "discord", ChatType: "group",
			DisplayName: "#eng-standup", TotalTokens: 48210, UpdatedAt: ms - 3*minute, SendPolicy: domain.SendPolicyAllow},
		{Key: "agent:main:slack:channel:customer-support", Kind: domain.KindGroup, Channel: "slack", ChatType: "channel",
			DisplayName: "#customer-support", TotalTokens: 131877, UpdatedAt: ms - 9*minute},
		{Key: "agent:main:cron:nightly-report", Kind: domain.KindCron, Channel: "internal", Label: "nightly report",
			TotalTokens: 9120, UpdatedAt: ms - 42*minute, Status: domain.SessionStatusDone},
		{Key: "agent:main:hook:github-webhook", Kind: domain.KindHook, Channel: "internal", Label: "github webhook",
			TotalTokens: 2304, UpdatedAt: ms - 95*minute, SendPolicy: domain.SendPolicyDeny},
		{Key: "agent:main:telegram:group:ops-alerts", Kind: domain.KindGroup, Channel: "telegram", ChatType: "group",
			DisplayName: "Ops alerts", TotalTokens: 15230, UpdatedAt: ms - 3*60*minute},
		{Key: "agent:main:direct:alice", Kind: domain.KindOther, Channel: "webchat", DisplayName: "Alice",
			TotalTokens: 6630, UpdatedAt: ms - 26*60*minute},
	}
	return st.Update(ctx, func(tx domain.Tx) error {
		for _, s := range named {
			s.AgentID, s.SessionID, s.Model, s.CreatedAt = "main", domain.NewID(), "script", s.UpdatedAt
			if err := tx.PutSession(s); err != nil {
				return err
			}
		}
		for i := range bulk {
			at := ms - 2*24*60*minute - int64(i)*minute
			s := domain.Session{Key: fmt.Sprintf("agent:main:hook:bulk-%05d", i), AgentID: "main", SessionID: domain.NewID(),
				Kind: domain.KindHook, Channel: "internal", Label: fmt.Sprintf("bulk import %05d", i), Model: "script",
				TotalTokens: int64(100 + i%900), UpdatedAt: at, CreatedAt: at}
			if err := tx.PutSession(s); err != nil {
				return err
			}
		}
		return nil
	})
}

// browserTools finds node, chromium and playwright-core, or says exactly
// what is missing.
func browserTools(t *testing.T) (node, chromium, e2eDir string) {
	t.Helper()
	e2eDir, err := filepath.Abs("e2e")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	node, err = exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node is not on PATH (apt-get install -y nodejs)")
	}
	chromium, err = testkit.ChromiumPath()
	if err != nil {
		missing = append(missing, fmt.Sprintf("%v (apt-get install -y chromium, or set SWITCHBOARD_CHROMIUM)", err))
	}
	if _, err := os.Stat(filepath.Join(e2eDir, "node_modules", "playwright-core", "package.json")); err != nil {
		missing = append(missing, fmt.Sprintf("playwright-core is not installed (cd %s && npm ci)", e2eDir))
	}
	if len(missing) > 0 {
		t.Fatalf("%s=1 but the browser test cannot run:\n  %s", browserEnv, strings.Join(missing, "\n  "))
	}
	return node, chromium, e2eDir
}

// repoRoot is the module root (where go.mod is), for docs/screenshots.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// startGateway opens a state dir and serves the gateway with the web UI on
// a loopback port. A negative bulk seeds nothing: a state with no session.
// Everything stops when the test ends.
func startGateway(t *testing.T, token string, bulk int) string {
	t.Helper()
	url, _ := startGatewayConfig(t, token, bulk, e2eConfig)
	return url
}

// startGatewayConfig is startGateway with the state dir's config, and
// the app it serves (for a test that acts beside the browser).
func startGatewayConfig(t *testing.T, token string, bulk int, config string) (string, *app.App) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "switchboard.json5")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(ctx, app.Options{StateDir: dir, ConfigPath: cfgPath, Getenv: func(string) string { return "" }, Owner: "web e2e test"})
	if err != nil {
		t.Fatalf("open state dir: %v", err)
	}
	if bulk >= 0 {
		if err := seedSessions(ctx, a.Store, time.Now(), bulk); err != nil {
			t.Fatalf("seed sessions: %v", err)
		}
	}
	srv, err := gateway.New(gateway.Options{Engine: a.Engine, Config: a.Config, Token: token, Web: web.Handler(),
		Version: "e2e", TickInterval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(serveCtx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("gateway serve: %v", err)
		}
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Close(cctx); err != nil {
			t.Errorf("close app: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/", a
}

// scenarioSteps are the lines scenario.mjs prints as it passes each step;
// the test checks every one so a scenario that silently skips fails.
var scenarioSteps = []string{
	"token prompt hides everything",
	"wrong token refused",
	"sessions list",
	"windowed rendering",
	"server-side search",
	"chat reply live",
	"streamed reply shows partial text",
	"spawn child in tree",
	"announce in transcript",
	"cancel slow child",
	"cancel from runs page",
	"stop and reset",
	"send policy deny",
	"runs page",
	"screenshots",
}

func TestBrowserE2E(t *testing.T) {
	if os.Getenv(browserEnv) != "1" {
		t.Skipf("browser test: set %s=1 (needs chromium and npm ci in internal/web/e2e)", browserEnv)
	}
	node, chromium, e2eDir := browserTools(t)
	const token = "e2e-token-7c1f0d92"
	url := startGateway(t, token, 10_000)
	shots := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "scenario.mjs", url, token, shots)
	cmd.Dir = e2eDir
	cmd.Env = append(os.Environ(), "SWITCHBOARD_CHROMIUM="+chromium)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("scenario failed (exit %d):\n%s", ee.ExitCode(), out.String())
		}
		t.Fatalf("scenario did not run: %v\n%s", err, out.String())
	}
	for _, step := range scenarioSteps {
		if !strings.Contains(out.String(), "ok - "+step) {
			t.Errorf("scenario did not report step %q:\n%s", step, out.String())
		}
	}
	t.Log(out.String())
	if os.Getenv(updateScreenshotsEnv) == "1" {
		dst := filepath.Join(repoRoot(t), "docs", "screenshots")
		if err := copyScreenshots(shots, dst); err != nil {
			t.Fatalf("update screenshots: %v", err)
		}
		t.Logf("screenshots copied to %s", dst)
	}
}

// TestBrowserFirstScreen opens the UI on a state with no session: the
// sessions view says what to do next instead of speaking of filters, a
// filter that matches nothing still says so, and the help's chat link
// starts the first session.
func TestBrowserFirstScreen(t *testing.T) {
	if os.Getenv(browserEnv) != "1" {
		t.Skipf("browser test: set %s=1 (needs chromium and npm ci in internal/web/e2e)", browserEnv)
	}
	node, chromium, e2eDir := browserTools(t)
	const token = "e2e-token-0f3b9a51"
	url := startGateway(t, token, -1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "scenario.mjs", url, token, t.TempDir(), "empty")
	cmd.Dir = e2eDir
	cmd.Env = append(os.Environ(), "SWITCHBOARD_CHROMIUM="+chromium)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("first-screen scenario failed: %v\n%s", err, out)
	}
	for _, step := range []string{
		"first screen says what to do next",
		"a filter that matches nothing says so",
		"the first screen starts a chat",
	} {
		if !strings.Contains(string(out), "ok - "+step) {
			t.Errorf("scenario did not report step %q:\n%s", step, out)
		}
	}
}

// copyScreenshots copies every PNG in src into dst, replacing files of the
// same name.
func copyScreenshots(src, dst string) error {
	names, err := filepath.Glob(filepath.Join(src, "*.png"))
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("no screenshots in %s", src)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(name)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
