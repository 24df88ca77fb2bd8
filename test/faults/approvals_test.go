package faults

import (
	"database/sql"
	"fmt"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// approvalConfig holds every send of agent main for an operator.
const approvalConfig = `{
  tools: { sessions: { visibility: "all" } },
  session: { agentToAgent: { maxPingPongTurns: 0 } },
  approvals: { rules: [{ tool: "send", requesterAgent: "main" }] },
  models: { providers: { script: { rules: [
    { when: { system: "announce" }, reply: "ANNOUNCE_SKIP" },
  ] } } },
}`

// TestApprovedSendSurvivesKill: an operator allows a held send and the
// gateway is killed at once, between the decision and the send (the
// send is carried out from the outbox after the decision's commit). After
// restarts every allowed send has run exactly once, and its requester
// session holds the outcome.
func TestApprovedSendSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("fault injection")
	}
	dir := t.TempDir()
	testkit.WriteConfig(t, dir, approvalConfig)
	const rounds = 3
	ids := make([]string, rounds)
	for i := range rounds {
		g := startGateway(t, dir, fmt.Sprintf("run %d", i))
		var tool struct {
			Result struct {
				Status     string `json:"status"`
				ApprovalID string `json:"approvalId"`
			} `json:"result"`
		}
		msg := fmt.Sprintf("approved %d", i)
		code, b := g.call("POST", "/api/tools/sessions_send?as=agent:main:a",
			map[string]any{"sessionKey": "agent:main:b", "message": msg, "timeoutSeconds": 0}, &tool)
		held := tool.Result
		if code != 200 || held.Status != "pending_approval" || held.ApprovalID == "" {
			t.Fatalf("send %d = %d %s; want pending_approval", i, code, b)
		}
		ids[i] = held.ApprovalID
		var res struct {
			Applied bool `json:"applied"`
		}
		if code, b := g.call("POST", "/api/approvals/"+held.ApprovalID+"/resolve", map[string]any{"decision": "allow-once"}, &res); code != 200 || !res.Applied {
			t.Fatalf("allow %d = %d %s", i, code, b)
		}
		g.kill()
	}
	g := startGateway(t, dir, "final")
	waitIdle(t, g, 60*time.Second)
	code, history := g.call("GET", "/api/sessions/agent:main:a/history?limit=100", nil, nil)
	if code != 200 {
		t.Fatalf("requester history = %d %s", code, history)
	}
	g.stop()

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "switchboard.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, id := range ids {
		var runs int
		msg := fmt.Sprintf("approved %d", i)
		if err := db.QueryRow(`SELECT count(*) FROM runs WHERE session_key = 'agent:main:b' AND kind = 'send' AND message = ?`, msg).Scan(&runs); err != nil {
			t.Fatal(err)
		}
		if runs != 1 {
			t.Errorf("%q ran %d times; an allowed send runs exactly once", msg, runs)
		}
		var status string
		if err := db.QueryRow(`SELECT status FROM approvals WHERE id = ?`, id).Scan(&status); err != nil || status != "allowed" {
			t.Errorf("approval %s = %q, %v", id, status, err)
		}
		if !strings.Contains(string(history), "approval "+id+": an operator allowed") {
			t.Errorf("the requester session holds no outcome of approval %s", id)
		}
	}
}
