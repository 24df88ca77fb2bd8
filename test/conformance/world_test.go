package conformance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// Tokens of the test config, one per principal. The config names each
// (gateway.auth.tokens[].name) so the gate can scope idempotency keys.
const (
	operatorToken   = "conf-operator-token"
	readToken       = "conf-read-token"
	writeToken      = "conf-write-token"
	boundToken      = "conf-bound-token"
	boundAdminToken = "conf-bound-admin-token"
)

// Session keys the rows use.
const (
	boundKey   = "agent:guest:bound"       // the bound tokens' session
	foreignKey = "agent:main:other-secret" // a session the bound tokens may not see
	sandboxKey = "agent:sandy:main"        // the sandboxed requester
	// latebox's sessions predate its sandbox (newWorld).
	lateboxKey   = "agent:latebox:main"
	lateboxOther = "agent:latebox:other"
	betaMain     = "agent:beta:main"
)

// testConfig is the config of both state dirs: four agents (sandy runs
// sandboxed; the bound tokens' session belongs to guest), room for many
// children, and one token per principal. Visibility "agent" lets the
// tool surfaces, which act as the default agent's main session, reach
// every session of agent main, while a bound session (of agent guest) and
// the sandboxed one still see none of them. The script model has one rule,
// for one task only (the child kept running for the progress rows), so
// "out of the box" rows see the defaults.
const testConfig = `{
  agents: {
    defaults: { subagents: { maxChildrenPerAgent: 100, maxConcurrent: 100 } },
    list: [
      { id: "main", default: true },
      { id: "beta" },
      { id: "sandy", sandbox: { mode: "all" } },
      { id: "guest" },
      // latebox's sessions were made before its sandbox was turned on (newWorld).
      { id: "latebox", sandbox: { mode: "all" } },
    ],
  },
  tools: { sessions: { visibility: "agent" } },
  models: { providers: { script: { rules: [
    { when: { message: "^conformance progress slow$" }, reply: "slow done", delayMs: 600000 },
    // The announce step of targets named announce-to-* speaks (rows_params_lookup_test.go).
    { when: { session: "announce-to-", system: "Agent-to-agent announce step:" }, reply: "announced" },
  ] } } },
  // A Telegram bot whose Bot API nothing answers (rows_channels_test.go).
  channels: { telegram: { botToken: "123456:conformance", apiRoot: "http://127.0.0.1:9" } },
  // A remote A2A agent nothing answers for (rows_remotes_test.go).
  // Sends from agent beta to agent beta wait for an operator (rows_approvals_test.go).
  approvals: { rules: [{ tool: "send", requesterAgent: "beta", targetAgent: "beta" }] },
  a2a: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true }, remotes: [{ id: "planner", url: "` + plannerCard + `" }] },
  gateway: {
    auth: {
      token: "` + operatorToken + `",
      tokens: [
        { name: "reader", token: "` + readToken + `", scopes: ["read"] },
        { name: "writer", token: "` + writeToken + `", scopes: ["read", "write"] },
        { name: "bound", token: "` + boundToken + `", session: "` + boundKey + `" },
        { name: "bound-admin", token: "` + boundAdminToken + `", scopes: ["read", "write", "admin"], session: "` + boundKey + `" },
      ],
    },
    // Rows run in parallel with a few shared tokens: the per-token rate
    // limit is a load rule, not what they check.
    limits: { rateLimit: { requestsPerSecond: 100000, burst: 100000 } },
  },
}
`

// world is what every row runs against: a state dir with no gateway (the
// CLI in-process), and a state dir whose gateway runs (every other
// surface), both with testConfig. Clients are made once and shared.
type world struct {
	inproc string // state dir without a gateway
	served string // state dir of the running gateway
	base   string // http://127.0.0.1:PORT of that gateway

	// cliMu serialises in-process CLI commands: two engines never write
	// one state dir at once, so a second command would fail on the lock.
	cliMu sync.Mutex

	// ids are what seed made that rows name (runs, sessionIds, a child).
	// seed sets them before any row runs; nothing changes them afterwards.
	ids seedIDs
	// boundMu keeps a reset of the bound session from coming between a
	// chat into it and the event that chat's row waits for.
	boundMu sync.Mutex

	mu       sync.Mutex
	ws       map[string]*wsClient          // by token
	mcpHTTP  map[string]*mcp.ClientSession // by token
	mcpStdio map[string]*mcp.ClientSession // by --session
	stdioErr map[string]error              // --session values that did not connect
}

// newWorld prepares both state dirs and starts the gateway; everything is
// stopped when the test ends.
func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{
		inproc:   t.TempDir(),
		served:   t.TempDir(),
		ws:       map[string]*wsClient{},
		mcpHTTP:  map[string]*mcp.ClientSession{},
		mcpStdio: map[string]*mcp.ClientSession{},
		stdioErr: map[string]error{},
	}
	// latebox's main and another of its sessions exist before its sandbox
	// is turned on: the config in effect must still sandbox them.
	unboxed := strings.Replace(testConfig, `{ id: "latebox", sandbox: { mode: "all" } }`, `{ id: "latebox" }`, 1)
	for _, d := range []string{w.inproc, w.served} {
		if err := os.WriteFile(filepath.Join(d, "switchboard.json5"), []byte(unboxed), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{lateboxKey, lateboxOther} {
			if r := w.cli(t, d, "chat", key, "made before the sandbox"); !r.ok {
				t.Fatalf("seed %s: %s", key, r.msg)
			}
		}
		if err := os.WriteFile(filepath.Join(d, "switchboard.json5"), []byte(testConfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Fail early, with the reason, when the config refuses a key.
	if r := w.cli(t, w.inproc, "config", "validate"); !r.ok {
		t.Fatalf("the test config is refused: %s", r.msg)
	}
	w.base = startGateway(t, w.served)
	t.Cleanup(w.close)
	return w
}

// close ends every client the world made.
func (w *world) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.ws {
		c.close()
	}
	for _, s := range w.mcpHTTP {
		_ = s.Close()
	}
	for _, s := range w.mcpStdio {
		_ = s.Close()
	}
}

// startGateway runs `switchboard gateway --listen 127.0.0.1:0` on dir and
// returns its base URL once gateway.json (which tells the CLI where the
// gateway is) names it. It is stopped with SIGTERM when the test ends.
func startGateway(t *testing.T, dir string) string {
	t.Helper()
	base := testkit.StartGateway(t, testkit.GatewayOptions{Dir: dir}).URL
	b, err := os.ReadFile(filepath.Join(dir, "gateway.json"))
	if err != nil {
		t.Fatalf("gateway listens on %s but wrote no gateway.json: %v", base, err)
	}
	var info struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(b, &info); err != nil || info.URL != base {
		t.Fatalf("gateway.json = %s, want url %s (%v)", b, base, err)
	}
	return base
}

// deadline is the context of one cell: nothing waits without a bound.
func deadline(t *testing.T, d time.Duration) context.Context { return testkit.Deadline(t, d) }
