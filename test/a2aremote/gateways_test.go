package a2aremote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// startGateway runs `switchboard gateway` on addr with config and token,
// and waits until it prints that it listens; SIGTERM stops it at the end.
func startGateway(t *testing.T, stateDir, addr, config, token string, env ...string) {
	t.Helper()
	testkit.StartGateway(t, testkit.GatewayOptions{Name: addr, Dir: stateDir, Listen: addr, Config: config, Token: token, Env: env})
}

// cli runs a switchboard command against the gateway of stateDir and
// decodes its --json output.
func cli(t *testing.T, stateDir, token string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(testkit.Binary(t), append(append([]string{"--state-dir", stateDir}, args...), "--json")...)
	cmd.Env = append(testkit.CleanEnv(), "SWITCHBOARD_GATEWAY_TOKEN="+token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("switchboard %v printed %q (%v): %v\n%s", args, stdout.String(), runErr, err, stderr.String())
	}
	// A refused or failed send exits 1 with its payload; anything else
	// that fails is the test's failure.
	if runErr != nil && out["status"] != "error" && out["status"] != "forbidden" {
		t.Fatalf("switchboard %v: %v\n%s%s", args, runErr, stdout.String(), stderr.String())
	}
	return out
}

// gatewayConfig is the config of a gateway whose one agent is self and
// whose remote peerID is the other gateway's agent peer. Its agent, on a
// message "loop", sends "loop" on to the peer; on "ask <x>" it asks the
// peer <x>; otherwise it echoes (the script model's default).
func gatewayConfig(self, peerID, peerAgent string, peerPort int, tokenEnv string) string {
	return fmt.Sprintf(`{
  agents: { list: [{ id: %[1]q, default: true }] },
  tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } },
  a2a: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true }, remotes: [{ id: %[2]q, url: "http://127.0.0.1:%[4]d/a2a/agents/%[3]s/.well-known/agent-card.json", token: "${%[5]s}" }] },
  models: { providers: { script: { rules: [
    { when: { role: "user", message: "^loop$" }, toolCall: { name: "sessions_send", arguments: { sessionKey: "agent:%[2]s:main", message: "loop" } } },
    { when: { role: "user", message: "^ask (.*)$" }, toolCall: { name: "sessions_send", arguments: { sessionKey: "agent:%[2]s:main", message: "$1" } } },
  ] } } },
}`, self, peerID, peerAgent, peerPort, tokenEnv)
}

// TestTwoGatewaysSendOverA2A runs two gateways, each with the other's agent
// as a remote: a send crosses over and back with its reply, is recorded
// on the sender's side, and a message that would go round forever is
// stopped by loop governance because the chain crosses the wire.
func TestTwoGatewaysSendOverA2A(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	portA, portB := testkit.FreePort(t), testkit.FreePort(t)
	const tokA, tokB = "token-of-a", "token-of-b"
	startGateway(t, dirB, fmt.Sprintf("127.0.0.1:%d", portB), gatewayConfig("beta", "alpha-gw", "alpha", portA, "A_TOKEN"), tokB, "A_TOKEN="+tokA)
	startGateway(t, dirA, fmt.Sprintf("127.0.0.1:%d", portA), gatewayConfig("alpha", "beta-gw", "beta", portB, "B_TOKEN"), tokA, "B_TOKEN="+tokB)

	// A plain send from A's operator to B's agent.
	out := cli(t, dirA, tokA, "send", "agent:beta-gw:main", "hello from a")
	if out["status"] != "ok" || out["reply"] != "echo: hello from a" {
		t.Fatalf("send to the remote = %v", out)
	}
	hist := cli(t, dirA, tokA, "sessions", "history", "agent:beta-gw:main")
	if b, _ := json.Marshal(hist); !strings.Contains(string(b), `"sourceTool":"sessions_send"`) || !strings.Contains(string(b), "echo: hello from a") {
		t.Fatalf("A's record of the exchange = %s", b)
	}
	// B recorded it as an A2A conversation in context "main".
	histB := cli(t, dirB, tokB, "sessions", "history", "agent:beta:a2a:main")
	if b, _ := json.Marshal(histB); !strings.Contains(string(b), "hello from a") {
		t.Fatalf("B's session of the conversation = %s", b)
	}

	// An agent's send inside a run: alpha asks beta, which answers.
	out = cli(t, dirA, tokA, "chat", "agent:alpha:main", "ask what time is it", "--wait", "60")
	if out["status"] != "ok" || !strings.Contains(fmt.Sprint(out["reply"]), "echo: what time is it") {
		t.Fatalf("alpha asking beta = %v", out)
	}

	// The loop: alpha → beta → alpha → beta … is refused when the chain
	// that crossed the wire twice already holds A's record of beta.
	out = cli(t, dirA, tokA, "chat", "agent:alpha:main", "loop", "--wait", "90")
	reply := fmt.Sprint(out["reply"])
	if out["status"] != "ok" || !strings.Contains(reply, "already part of this chain") || !strings.Contains(reply, "agent:beta-gw:main") {
		t.Fatalf("loop = %v", out)
	}
	t.Logf("loop reply: %s", reply)
	// The refusal happened on A, in the session B's message started.
	histLoop := cli(t, dirA, tokA, "sessions", "history", "agent:alpha:a2a:main")
	if b, _ := json.Marshal(histLoop); !strings.Contains(string(b), "already part of this chain") {
		t.Fatalf("A's a2a session = %s", b)
	}
}
