package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// approvalsConfig holds every send of agent main for an operator; the
// script model answers a message with "echo: <message>".
const approvalsConfig = `{
  agents: { list: [{ id: "main", name: "Main", default: true }] },
  tools: { sessions: { visibility: "all" } },
  session: { agentToAgent: { maxPingPongTurns: 0 } },
  approvals: { rules: [{ tool: "send", requesterAgent: "main" }] },
  models: { providers: { script: { rules: [
    { when: { system: "announce" }, reply: "ANNOUNCE_SKIP" },
  ] } } },
}
`

// heldSend is the outcome of one sessions_send an approvals rule holds,
// as its requester's tool call returns it.
type heldSend struct {
	out map[string]any
	err error
}

// TestBrowserApprovals: two agent-to-agent sends are held by an approvals
// rule while their requesters wait; in the web UI's Approvals view the
// operator allows one and denies the other. The allowed send reaches its
// target (seen in the UI's transcript) and its requester's tool result
// is the reply; the denied one's requester gets forbidden and its target
// never gets the message.
func TestBrowserApprovals(t *testing.T) {
	if os.Getenv(browserEnv) != "1" {
		t.Skipf("browser test: set %s=1 (needs chromium and npm ci in internal/web/e2e)", browserEnv)
	}
	node, chromium, e2eDir := browserTools(t)
	const token = "e2e-token-5d2a7e18"
	url, a := startGatewayConfig(t, token, -1, approvalsConfig)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	send := func(from, to, msg string) <-chan heldSend {
		ch := make(chan heldSend, 1)
		args, _ := json.Marshal(map[string]any{"sessionKey": to, "message": msg, "timeoutSeconds": 120})
		go func() {
			o := a.Engine.CallTool(ctx, api.Operator().ActingAs(from), api.ToolSessionsSend, args)
			var out map[string]any
			err := json.Unmarshal(o.JSON(), &out)
			ch <- heldSend{out, err}
		}()
		return ch
	}
	const allowMsg, denyMsg = "please allow: ship the weekly report", "please deny: wipe the staging database"
	allowed := send("agent:main:alice", "agent:main:bob", allowMsg)
	denied := send("agent:main:alice", "agent:main:carol", denyMsg)

	cmd := exec.CommandContext(ctx, node, "approvals.mjs", url, token, allowMsg, denyMsg, "agent:main:bob")
	cmd.Dir = e2eDir
	cmd.Env = append(os.Environ(), "SWITCHBOARD_CHROMIUM="+chromium)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("scenario output:\n%s", out)
	if err != nil {
		t.Fatalf("approvals scenario failed: %v", err)
	}
	for _, step := range []string{
		"pending approvals listed",
		"allow once",
		"deny",
		"allowed send reached its target",
	} {
		if !strings.Contains(string(out), "ok - "+step+"\n") {
			t.Errorf("scenario did not report step %q", step)
		}
	}

	wait := func(name string, ch <-chan heldSend) map[string]any {
		select {
		case r := <-ch:
			if r.err != nil {
				t.Fatalf("%s send: result is not JSON: %v", name, r.err)
			}
			return r.out
		case <-ctx.Done():
			t.Fatalf("%s send: no tool result after the decision", name)
			return nil
		}
	}
	if r := wait("allowed", allowed); r["status"] != "ok" || r["reply"] != "echo: "+allowMsg || r["approvalId"] == nil {
		t.Errorf("allowed send's tool result = %v, want ok with the target's reply and the approval id", r)
	}
	if r := wait("denied", denied); r["status"] != "forbidden" || r["approvalId"] == nil {
		t.Errorf("denied send's tool result = %v, want forbidden with the approval id", r)
	}
	// The denied send's target never got the message: it has no session,
	// or one without it.
	h, err := a.Engine.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: "agent:main:carol", Limit: 50, Raw: true})
	switch {
	case errors.Is(err, domain.ErrNotFound):
	case err != nil:
		t.Fatalf("history of the denied send's target: %v", err)
	default:
		b, _ := json.Marshal(h.Messages)
		if strings.Contains(string(b), "wipe the staging") {
			t.Errorf("the denied message reached its target: %s", b)
		}
	}
}
