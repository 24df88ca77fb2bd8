package replicas

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// replicaConfig is every replica's config: the PostgreSQL store, no JSONL
// mirror (each replica has its own state dir), a short lease so a killed
// replica's runs are taken over quickly, and script rules: slow turns, a
// turn whose tool call ran before it stalls, a turn that spawns a child.
const replicaConfig = `{
  store: { driver: "postgres", url: %q },
  transcripts: { mirror: false },
  replicas: { leaseSeconds: %d },
  runtime: { lanes: { subagent: %d } },
  tools: { sessions: { visibility: "all" } },
  models: { providers: { script: { rules: [
    { when: { session: ":subagent:", message: "long child" }, reply: "long child done", delayMs: 4000 },
    { when: { session: ":subagent:" }, reply: "child result {{message}}", delayMs: 50 },
    { when: { message: "^stall" }, reply: "stalled done", delayMs: 6000 },
    { when: { message: "^tool then stall" }, toolCall: { name: "agents_list", arguments: {} } },
    { when: { role: "toolResult", session: "toolstall" }, reply: "after tool", delayMs: 6000 },
    { when: { role: "toolResult", session: "deadparent" }, reply: "parent done", delayMs: 6000 },
    { when: { message: "^slow" }, reply: "slow done", delayMs: 300 },
    { when: { message: "^quick" }, reply: "quick done", delayMs: 20 },
    { when: { message: "^spawn (.*)" }, toolCall: { name: "sessions_spawn", arguments: { task: "$1" } } },
  ] } } },
}`

// gateway is one running `switchboard gateway` process.
type gateway struct {
	*testkit.Gateway
	t    testing.TB
	name string
	base string
}

// setup says how to start replicas.
type setup struct {
	// lease is replicas.leaseSeconds (default 3; the kill test uses 1).
	lease int
	// subagentLanes gives each replica's runtime.lanes.subagent in turn
	// (default 64).
	subagentLanes []int
}

// startReplicas starts n gateways on one fresh database.
func startReplicas(t testing.TB, n int, opts setup) []*gateway {
	t.Helper()
	url := testkit.Postgres(t)
	if opts.lease == 0 {
		opts.lease = 3
	}
	var gs []*gateway
	for i := range n {
		lanes := 64
		if i < len(opts.subagentLanes) {
			lanes = opts.subagentLanes[i]
		}
		gs = append(gs, startGateway(t, fmt.Sprintf("r%d", i+1), fmt.Sprintf(replicaConfig, url, opts.lease, lanes)))
	}
	return gs
}

// startGateway runs `switchboard gateway` on a new state dir with cfg and
// returns once it listens; it is killed when the test ends.
func startGateway(t testing.TB, name, cfg string) *gateway {
	t.Helper()
	g := testkit.StartGateway(t, testkit.GatewayOptions{Name: name, Dir: filepath.Join(t.TempDir(), name), Config: cfg, KillAtEnd: true})
	return &gateway{Gateway: g, t: t, name: name, base: g.URL}
}

// kill ends the gateway with SIGKILL (no-op when it already ended) and
// fails the test if its log showed a race or a panic.
func (g *gateway) kill() { g.Kill() }

// stop ends the gateway with SIGTERM and waits for a clean exit.
func (g *gateway) stop() { g.Stop() }

// call sends a JSON request and decodes a 2xx answer into out; it fails
// the test on any other answer.
func (g *gateway) call(method, path string, body, out any) {
	g.t.Helper()
	code, b, err := g.Do(method, path, body)
	if err != nil {
		g.t.Fatal(err)
	}
	if code >= 300 {
		g.t.Fatalf("%s %s on %s: %d %s", method, path, g.name, code, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			g.t.Fatalf("%s %s on %s: decode %s: %v", method, path, g.name, b, err)
		}
	}
}

// run is the part of a run row the tests read.
type run struct {
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey"`
	Status     string `json:"status"`
	Reply      string `json:"reply"`
	Error      string `json:"error"`
	Message    string `json:"message"`
	Attempt    int    `json:"attempt"`
	CreatedAt  int64  `json:"createdAt"`
	StartedAt  int64  `json:"startedAt"`
	EndedAt    int64  `json:"endedAt"`
}

// chat posts a user message to key on g and returns its run as accepted.
func (g *gateway) chat(key, msg string) run {
	g.t.Helper()
	var a struct {
		Run *run `json:"run"`
	}
	g.call("POST", "/api/sessions/"+key+"/chat", map[string]any{"message": msg}, &a)
	if a.Run == nil || a.Run.RunID == "" {
		g.t.Fatalf("chat %s on %s: no run", key, g.name)
	}
	return *a.Run
}

// wait waits on g for run id to end (up to timeout) and returns it.
func (g *gateway) wait(id string, timeout time.Duration) run {
	g.t.Helper()
	var r run
	g.call("GET", fmt.Sprintf("/api/runs/%s?wait=%s", id, timeout), nil, &r)
	return r
}

// message is the part of a history message the tests read.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is a message's text (a string content or its text blocks).
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// history returns a session's whole transcript read through g.
func (g *gateway) history(key string) []message {
	g.t.Helper()
	var h struct {
		Messages []message `json:"messages"`
	}
	g.call("GET", "/api/sessions/"+key+"/history?limit=1000", nil, &h)
	return h.Messages
}

// status sends a JSON request and returns the HTTP status.
func (g *gateway) status(method, path string, body any) int {
	g.t.Helper()
	code, _, err := g.Do(method, path, body)
	if err != nil {
		g.t.Fatal(err)
	}
	return code
}

// post sends an empty JSON POST and returns what went wrong, if anything;
// unlike call it may run on any goroutine.
func (g *gateway) post(path string) error {
	code, b, err := g.Do("POST", path, map[string]any{})
	if err != nil {
		return err
	}
	if code >= 300 {
		return fmt.Errorf("POST %s on %s: %d %s", path, g.name, code, b)
	}
	return nil
}
