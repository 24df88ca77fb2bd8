package replicas

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// TestKillReplicaMidRun: a replica is SIGKILLed while it executes two
// runs. After its lease (1 s here) another replica takes them over and
// applies the crash rule: the run that had executed no tool call runs
// again (attempt 2) and ends ok there; the run whose tool call had
// executed is recorded as aborted.
func TestKillReplicaMidRun(t *testing.T) {
	gs := startReplicas(t, 2, setup{lease: 1})
	a, b := gs[0], gs[1]
	// Submitted through a, so a claims and executes both.
	plain := a.chat("agent:main:plainstall", "stall here")
	tooled := a.chat("agent:main:toolstall", "tool then stall")
	testkit.WaitFor(t, 30*time.Second, "both runs running on a, the tool call executed", func() bool {
		var r run
		b.call("GET", "/api/runs/"+plain.RunID, nil, &r)
		if r.Status != "running" {
			return false
		}
		for _, m := range b.historyTools("agent:main:toolstall") {
			if m.Role == "toolResult" {
				return true
			}
		}
		return false
	})
	killed := time.Now()
	a.kill()

	got := b.wait(plain.RunID, 40*time.Second)
	if got.Status != "ok" || got.Reply != "stalled done" || got.Attempt != 2 {
		t.Fatalf("run without a tool call after the kill: %+v, want ok on attempt 2", got)
	}
	// The re-run began after the lease expired: 1 s, renewals every
	// third of it, and a look for expired leases at each renewal.
	if took := time.UnixMilli(got.StartedAt).Sub(killed); took > 5*time.Second {
		t.Errorf("the run was taken over %s after the kill, want within the lease and two renewals", took)
	}
	ab := b.wait(tooled.RunID, 40*time.Second)
	if ab.Status != "error" || !strings.Contains(ab.Error, "aborted") {
		t.Fatalf("run whose tool call had executed: %+v, want an aborted error", ab)
	}
	// Each user message was stored once (the first attempt's), and the
	// retried run's reply once.
	h := b.history("agent:main:plainstall")
	if n := count(h, "user", "stall here"); n != 1 {
		t.Errorf("user message stored %d times, want 1: %+v", n, h)
	}
	if n := count(h, "assistant", "stalled done"); n != 1 {
		t.Errorf("reply stored %d times, want 1: %+v", n, h)
	}
	// The survivor keeps serving.
	if r := b.wait(b.chat("agent:main:after", "hello").RunID, 20*time.Second); r.Status != "ok" {
		t.Fatalf("a new run on the survivor: %+v", r)
	}
}

// historyTools returns a session's transcript with tool results.
func (g *gateway) historyTools(key string) []message {
	g.t.Helper()
	var h struct {
		Messages []message `json:"messages"`
	}
	g.call("GET", "/api/sessions/"+key+"/history?limit=1000&includeTools=true", nil, &h)
	return h.Messages
}

// count counts the messages of role whose text is text.
func count(msgs []message, role, text string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role && m.text() == text {
			n++
		}
	}
	return n
}

// TestEventsAcrossReplicas: a WebSocket client connected to one replica
// receives the agent and chat events of a run executed on another.
func TestEventsAcrossReplicas(t *testing.T) {
	gs := startReplicas(t, 2, setup{})
	a, b := gs[0], gs[1]
	ws := dialWS(t, b)
	r := a.chat("agent:main:events", "slow events")
	is := func(p map[string]any) bool { return p["runId"] == r.RunID }
	start := ws.waitEvent("agent", func(p map[string]any) bool {
		d, _ := p["data"].(map[string]any)
		return is(p) && d["phase"] == "start"
	}, 20*time.Second)
	if start["sessionKey"] != "agent:main:events" {
		t.Errorf("lifecycle start: %v", start)
	}
	final := ws.waitEvent("chat", func(p map[string]any) bool { return is(p) && p["state"] == "final" }, 20*time.Second)
	msg, _ := json.Marshal(final["message"])
	if !strings.Contains(string(msg), "slow done") {
		t.Errorf("chat final on b for a run on a: %v", final)
	}
	ws.waitEvent("sessions.changed", func(p map[string]any) bool { return p["sessionKey"] == "agent:main:events" }, 20*time.Second)
}

// TestCancelAndCleanStopAcrossReplicas: a run executing on one replica is
// cancelled through another; a replica stopped cleanly (SIGTERM) hands the
// run it was executing to the others at once, without waiting for its
// lease (15 s here).
func TestCancelAndCleanStopAcrossReplicas(t *testing.T) {
	gs := startReplicas(t, 2, setup{lease: 15})
	a, b := gs[0], gs[1]
	victim := a.chat("agent:main:cancelme", "stall to cancel")
	waitRunning(t, b, victim.RunID)
	var res struct {
		Run       run  `json:"run"`
		Cancelled bool `json:"cancelled"`
	}
	b.call("POST", "/api/runs/"+victim.RunID+"/cancel", map[string]any{}, &res)
	if got := b.wait(victim.RunID, 20*time.Second); got.Status != "cancelled" {
		t.Fatalf("run on a cancelled through b: %+v", got)
	}

	moved := a.chat("agent:main:handoff", "stall then hand off")
	waitRunning(t, b, moved.RunID)
	stopped := time.Now()
	a.stop()
	got := b.wait(moved.RunID, 30*time.Second)
	if got.Status != "ok" || got.Attempt != 2 {
		t.Fatalf("run of the stopped replica: %+v, want ok on attempt 2", got)
	}
	if took := time.UnixMilli(got.StartedAt).Sub(stopped); took > 5*time.Second {
		t.Errorf("the run restarted %s after the clean stop; want well within the 15 s lease", took)
	}
}

// waitRunning waits until run id is running (read through g).
func waitRunning(t *testing.T, g *gateway, id string) {
	t.Helper()
	testkit.WaitFor(t, 20*time.Second, "run "+id+" running", func() bool {
		var r run
		g.call("GET", "/api/runs/"+id, nil, &r)
		return r.Status == "running"
	})
}
