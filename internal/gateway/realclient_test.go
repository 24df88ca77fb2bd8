package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// openclawCLI finds OpenClaw's real CLI as .ci/run installs it, or skips
// the test unless SWITCHBOARD_REAL_CLIENTS=1.
func openclawCLI(t *testing.T) (bin string, env []string) {
	t.Helper()
	testkit.RealClients(t, "set SWITCHBOARD_REAL_CLIENTS=1 to run against OpenClaw's CLI (installed by .ci/run)")
	bin = testkit.NPMBin(t, "openclaw")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("OpenClaw CLI not installed (run .ci/run or npm ci in test/realclients): %v", err)
	}
	home := t.TempDir()
	env = testkit.NodeEnv(t, home, "OPENCLAW_STATE_DIR="+filepath.Join(home, ".openclaw"), "NO_COLOR=1")
	return bin, env
}

// TestOpenClawCLI drives the gateway with `openclaw gateway call`.
func TestOpenClawCLI(t *testing.T) {
	bin, env := openclawCLI(t)
	e := newEnv(t, envOptions{token: "real-client-token"})
	call := func(method, params string, extra ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args := append([]string{"gateway", "call", method, "--url", strings.TrimSuffix(e.ws, "/"), "--token", e.token,
			"--json", "--timeout", "30000", "--params", params}, extra...)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("openclaw gateway call %s: %v\nstdout: %s\nstderr: %s", method, err, stdout.String(), stderr.String())
		}
		// The JSON payload is the last JSON object printed.
		out := stdout.String()
		i := strings.Index(out, "{")
		if i < 0 {
			t.Fatalf("no JSON from %s: %s\nstderr: %s", method, out, stderr.String())
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out[i:]), &v); err != nil {
			t.Fatalf("decode %s output %q: %v", method, out, err)
		}
		return v
	}

	final := call("agent", `{"message":"hello from openclaw","sessionKey":"main","idempotencyKey":"oc-1"}`, "--expect-final")
	result, _ := final["result"].(map[string]any)
	payloads, _ := result["payloads"].([]any)
	if final["status"] != "ok" || len(payloads) != 1 || payloads[0].(map[string]any)["text"] != "echo: hello from openclaw" {
		t.Fatalf("agent --expect-final = %v", final)
	}

	list := call("sessions.list", `{}`)
	sessions, _ := list["sessions"].([]any)
	if list["count"] != float64(1) || len(sessions) != 1 || sessions[0].(map[string]any)["key"] != "agent:main:main" {
		t.Fatalf("sessions.list = %v", list)
	}

	hist := call("chat.history", `{"sessionKey":"main","limit":5}`)
	msgs, _ := hist["messages"].([]any)
	if hist["sessionKey"] != "agent:main:main" || len(msgs) != 2 {
		t.Fatalf("chat.history = %v", hist)
	}

	wait := call("agent.wait", `{"runId":"`+final["runId"].(string)+`","timeoutMs":1000}`)
	if wait["status"] != "ok" {
		t.Fatalf("agent.wait = %v", wait)
	}

	patched := call("sessions.patch", `{"key":"main","sendPolicy":"deny","label":"from-openclaw"}`)
	entry, _ := patched["entry"].(map[string]any)
	if patched["ok"] != true || entry["sendPolicy"] != "deny" {
		t.Fatalf("sessions.patch = %v", patched)
	}
	list = call("sessions.list", `{}`)
	row := list["sessions"].([]any)[0].(map[string]any)
	if row["sendPolicy"] != "deny" || row["label"] != "from-openclaw" {
		t.Fatalf("sessions.list after patch = %v", row)
	}
}
