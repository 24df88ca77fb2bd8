package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestDeadlineFlowsDown: a session with a seconds budget spawns a child
// asking for more time; the child gets at most what is left, and its
// deadline is no later than its parent's.
func TestDeadlineFlowsDown(t *testing.T) {
	h := newHarness(t, budgetRules(), budgetConfig)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"hello","label":"parent","budget":{"seconds":30}}`))
	parent := h.account(res.ChildSessionKey)
	if parent.Budget.Seconds != 30 || parent.DeadlineAt == 0 {
		t.Fatalf("parent account %+v", parent)
	}
	child := spawnResult(t, h.call(Requester{SessionKey: res.ChildSessionKey}, api.ToolSessionsSpawn, `{"task":"hello","budget":{"seconds":600}}`))
	if child.Budget == nil || child.Budget.Seconds > 30 || child.Budget.Seconds < 1 {
		t.Fatalf("child budget %+v, want at most the parent's 30 s", child.Budget)
	}
	if a := h.account(child.ChildSessionKey); a.DeadlineAt > parent.DeadlineAt+1000 || a.DeadlineAt == 0 {
		t.Fatalf("child deadline %d after the parent's %d", a.DeadlineAt, parent.DeadlineAt)
	}
	// Without asking, the child inherits what is left.
	heir := spawnResult(t, h.call(Requester{SessionKey: res.ChildSessionKey}, api.ToolSessionsSpawn, `{"task":"hello"}`))
	if heir.Budget == nil || heir.Budget.Seconds > 30 || heir.Budget.Seconds < 1 {
		t.Fatalf("inheriting child budget %+v", heir.Budget)
	}
}

// TestDeadlineClampsSendAndStopsTheRun: a child with a 2-second budget
// sends to a slow session asking to wait 30 s; the send answers timeout
// within the child's time, the child's run ends with the seconds budget
// exceeded, and the target's run goes on.
func TestDeadlineClampsSendAndStopsTheRun(t *testing.T) {
	rules := append(budgetRules(),
		toolCall(config.ScriptWhen{Role: "user", Message: `^sendslow$`}, api.ToolSessionsSend,
			map[string]any{"sessionKey": "agent:main:slow", "message": "slow please", "timeoutSeconds": 30}),
		config.ScriptRule{When: config.ScriptWhen{Session: "^agent:main:slow$", Message: "slow please"}, Reply: str("done"), DelayMs: 4000},
		config.ScriptRule{When: config.ScriptWhen{Role: "toolResult", System: `Label: sender\.`}, Reply: str("after the send"), DelayMs: 5000},
	)
	h := newHarness(t, rules, func(c *config.Config) {
		budgetConfig(c)
		agentVisibility(c)
	})
	h.chat("agent:main:slow", "hello") // the target exists
	start := time.Now()
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"sendslow","label":"sender","budget":{"seconds":2}}`))
	run := h.endedRun(res.RunID)
	elapsed := time.Since(start)
	if run.Status != domain.RunError || run.Error != "budget exceeded: seconds 2 of 2" {
		t.Fatalf("run = %s %q", run.Status, run.Error)
	}
	if elapsed > 4*time.Second {
		t.Fatalf("the run took %v, past its 2 s budget", elapsed)
	}
	var send struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		RunID  string `json:"runId"`
	}
	for _, m := range h.history(res.ChildSessionKey) {
		if m.Role == domain.RoleToolResult && m.ToolName == api.ToolSessionsSend {
			if err := json.Unmarshal([]byte(m.Content.Text()), &send); err != nil {
				t.Fatal(err)
			}
		}
	}
	if send.Status != "timeout" || !strings.Contains(send.Error, "no reply within 2s") {
		t.Fatalf("send result = %+v, want a timeout clamped to the 2 s left", send)
	}
	// The target's run was not stopped by the sender's deadline.
	target := h.endedRun(send.RunID)
	if target.Status != domain.RunOK || target.Reply != "done" {
		t.Fatalf("target run = %s %q", target.Status, target.Reply)
	}
}
