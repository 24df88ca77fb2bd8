package a2aremote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// jsAgent starts agent.mjs (the @a2a-js/sdk 1.3.0 server) with env and
// returns its port. Without node or the installed SDK the test skips with
// the reason, except in CI (CI or SWITCHBOARD_REAL_CLIENTS set), where it
// fails: there .ci/run installs both.
func jsAgent(t *testing.T, env ...string) int {
	t.Helper()
	// Node 24 from test/realclients (the SDK needs Node ≥ 20; a distribution's
	// nodejs may be older), else the node on PATH.
	node := testkit.Node(t)
	_, err := os.Stat(node)
	if err != nil {
		node, err = exec.LookPath("node")
	}
	if err == nil {
		_, err = os.Stat(filepath.Join("node_modules", "@a2a-js", "sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" || os.Getenv("SWITCHBOARD_REAL_CLIENTS") == "1" {
			t.Fatalf("node and @a2a-js/sdk are required (npm ci in test/a2aremote; .ci/run does it): %v", err)
		}
		t.Skipf("needs node and @a2a-js/sdk (run npm ci in test/a2aremote): %v", err)
	}
	cmd := exec.Command(node, "agent.mjs")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("agent.mjs did not stop on SIGTERM")
		}
	})
	ports := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var p int
			if _, err := fmt.Sscanf(sc.Text(), "listening %d", &p); err == nil {
				ports <- p
			}
		}
	}()
	select {
	case p := <-ports:
		return p
	case <-time.After(30 * time.Second):
		t.Fatal("agent.mjs did not start")
	}
	return 0
}

// TestJSSDKAgentAsRemote: a switchboard gateway sends to an agent built on
// the official JavaScript SDK, over A2A 1.0 with a Bearer token: the reply
// comes back, the contextId is derived from the key, the chain crosses
// the wire in the metadata, and a failed task, a wrong token and a stopped
// agent are errors naming the remote.
func TestJSSDKAgentAsRemote(t *testing.T) {
	const remoteToken = "js-agent-token"
	port := jsAgent(t, "A2A_NAME=jsplanner", "A2A_TOKEN="+remoteToken)
	dir := t.TempDir()
	const tok = "gateway-token"
	card := fmt.Sprintf("http://127.0.0.1:%d/.well-known/agent-card.json", port)
	config := fmt.Sprintf(`{
  agents: { list: [{ id: "main", default: true }] },
  tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } },
  a2a: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true }, remotes: [
    { id: "planner", url: %q, token: "${PLANNER_TOKEN}" },
    { id: "wrongtoken", url: %q, token: "not-the-token" },
  ] },
  models: { providers: { script: { rules: [
    { when: { role: "user", message: "^ask (.*)$" }, toolCall: { name: "sessions_send", arguments: { sessionKey: "agent:planner:research", message: "$1" } } },
  ] } } },
}`, card, card)
	startGateway(t, dir, fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t)), config, tok, "PLANNER_TOKEN="+remoteToken)

	out := cli(t, dir, tok, "send", "agent:planner:main", "plan a trip")
	want := `remote jsplanner ctx=main chain=["agent:planner:main"] got: plan a trip`
	if out["status"] != "ok" || out["reply"] != want {
		t.Fatalf("send = %v, want reply %q", out, want)
	}

	// From inside a run: the chain names the requester, then the local record.
	out = cli(t, dir, tok, "chat", "main", "ask where to", "--wait", "60")
	want = `remote jsplanner ctx=research chain=[\"agent:main:main\",\"agent:planner:research\"] got: where to`
	if out["status"] != "ok" || !strings.Contains(fmt.Sprint(out["reply"]), want) {
		t.Fatalf("chat = %v, want a reply containing %q", out, want)
	}

	// Fire and forget: accepted; the exchange completes and is recorded.
	out = cli(t, dir, tok, "send", "agent:planner:later", "slow 200", "--timeout", "0")
	if out["status"] != "accepted" {
		t.Fatalf("timeoutSeconds 0 = %v", out)
	}
	run := cli(t, dir, tok, "runs", "wait", fmt.Sprint(out["runId"]), "--timeout", "30")
	if run["status"] != "ok" || !strings.Contains(fmt.Sprint(run["reply"]), "got: slow 200") {
		t.Fatalf("the accepted exchange = %v", run)
	}
	hist := cli(t, dir, tok, "sessions", "history", "agent:planner:later")
	if b, _ := json.Marshal(hist); !strings.Contains(string(b), "got: slow 200") {
		t.Fatalf("the accepted exchange was not recorded: %s", b)
	}

	for _, tc := range []struct{ key, msg, want string }{
		{"agent:planner:main", "fail", "the js agent failed on purpose"},
		{"agent:wrongtoken:main", "hi", "remote wrongtoken: refused the credentials"},
	} {
		out = cli(t, dir, tok, "send", tc.key, tc.msg)
		if out["status"] != "error" || !strings.Contains(fmt.Sprint(out["error"]), tc.want) {
			t.Fatalf("send %s %q = %v, want an error containing %q", tc.key, tc.msg, out, tc.want)
		}
	}
}

// TestJSSDKAgentAsRemote03: the same SDK with its v0.3 compatibility layer
// and a card that offers only a protocol 0.3 JSON-RPC interface: the
// client takes the 0.3 path (message/send, no A2A-Version header) against
// an independent 0.3 implementation, and the chain still crosses.
func TestJSSDKAgentAsRemote03(t *testing.T) {
	port := jsAgent(t, "A2A_NAME=js03", "A2A_LEGACY=1")
	dir := t.TempDir()
	const tok = "gateway-token"
	config := fmt.Sprintf(`{
  a2a: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true }, remotes: [{ id: "old", url: "http://127.0.0.1:%d/.well-known/agent-card.json" }] },
}`, port)
	startGateway(t, dir, fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t)), config, tok)
	out := cli(t, dir, tok, "send", "agent:old:main", "hello 0.3")
	want := `remote js03 ctx=main chain=["agent:old:main"] got: hello 0.3`
	if out["status"] != "ok" || out["reply"] != want {
		t.Fatalf("send over 0.3 = %v, want reply %q", out, want)
	}
	out = cli(t, dir, tok, "send", "agent:old:main", "fail")
	if out["status"] != "error" || !strings.Contains(fmt.Sprint(out["error"]), "remote old: task failed") {
		t.Fatalf("failed task over 0.3 = %v", out)
	}
}
