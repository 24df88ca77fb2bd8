package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/audit"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// loopHarness: three sessions of agents that answer every message, with
// the loop breaker at 3 messages per edge and no reply-back turns.
func loopHarness(t *testing.T, mutate func(*config.Config)) (*harness, map[string]string) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "ANNOUNCE_SKIP"),
		rule(config.ScriptWhen{}, "ok"),
	}, func(c *config.Config) {
		agentVisibility(c)
		c.Session.AgentToAgent.MaxPingPongTurns = 0
		c.Session.AgentToAgent.LoopBreaker = config.LoopBreakerConfig{MaxMessages: 3, WindowSeconds: 600}
		if mutate != nil {
			mutate(c)
		}
	})
	runOf := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		runOf["agent:main:"+name] = h.chat(name, "hello").ID
	}
	return h, runOf
}

func sendFrom(h *harness, runOf map[string]string, from, to, msg string) api.SendResult {
	h.t.Helper()
	return sendResult(h.t.(*testing.T), h.call(Requester{SessionKey: from, RunID: runOf[from]}, api.ToolSessionsSend,
		fmt.Sprintf(`{"sessionKey":%q,"message":%q,"timeoutSeconds":0}`, to, msg)))
}

func TestLoopBreakerStopsThreeAgentLoopAndResumeLosesNothing(t *testing.T) {
	h, runOf := loopHarness(t, nil)
	events, unsubscribe := h.e.Subscribe(256)
	defer unsubscribe()
	a, b, c := "agent:main:a", "agent:main:b", "agent:main:c"
	ring := [][2]string{{a, b}, {b, c}, {c, a}}
	sent, held := 0, 0
	var pausedAt api.SendResult
	// The scripted loop: each agent passes a message on, round after
	// round, until the breaker holds one.
	for round := 1; held == 0 && round <= 10; round++ {
		for _, e := range ring {
			res := sendFrom(h, runOf, e[0], e[1], fmt.Sprintf("round %d", round))
			if res.Status == "paused" {
				held++
				pausedAt = res
				break
			}
			if res.Status != "accepted" && res.Status != "ok" {
				t.Fatalf("round %d %s → %s: %+v", round, e[0], e[1], res)
			}
			sent++
		}
	}
	if sent != 9 || held != 1 {
		t.Fatalf("sent %d before the breaker held one (held %d); want 9: 3 messages on each of three edges", sent, held)
	}
	if !strings.Contains(pausedAt.Error, "4 agent-to-agent messages on agent:main:a → agent:main:b") ||
		!strings.Contains(pausedAt.Error, "maxMessages 3") || !strings.Contains(pausedAt.Error, "switchboard loops resume") {
		t.Fatalf("pause answer = %q", pausedAt.Error)
	}
	// The paused edge holds whatever else it carries; other edges flow.
	if res := sendFrom(h, runOf, a, b, "held too"); res.Status != "paused" {
		t.Fatalf("second message on the paused edge = %+v", res)
	}
	if res := sendFrom(h, runOf, b, a, "still flows"); res.Status == "paused" {
		t.Fatalf("an unpaused edge held a message: %+v", res)
	}
	list, err := h.e.LoopsList(t.Context(), api.Operator())
	pauses := list.Pauses
	if err != nil || len(pauses) != 1 || pauses[0].From != a || pauses[0].To != b {
		t.Fatalf("pauses = %+v, %v", pauses, err)
	}
	sawEvent := false
	for !sawEvent {
		select {
		case ev := <-events:
			sawEvent = ev.Kind == domain.EventLoopPaused && ev.SessionKey == a && strings.Contains(ev.Reason, "maxMessages 3")
		case <-time.After(5 * time.Second):
			t.Fatal("no loop.paused event")
		}
	}
	if _, err := h.e.LoopResume(t.Context(), api.Principal{Name: "t", Scopes: api.AllScopes, Session: b}, api.LoopResumeRequest{From: a, To: b}); err == nil {
		t.Fatal("a session-bound principal resumed an edge")
	}
	before := len(runsOf(h, b, domain.RunKindSend))
	res, err := h.e.LoopResume(t.Context(), api.Operator(), api.LoopResumeRequest{From: a, To: b})
	if n := res.Released; err != nil || n != 2 {
		t.Fatalf("resume = %+v, %v; want the 2 held messages released", res, err)
	}
	// Nothing is lost: both held messages reach b, in order.
	h.waitFor("held messages sent", func() bool { return len(runsOf(h, b, domain.RunKindSend)) == before+2 })
	got := runsOf(h, b, domain.RunKindSend)[:2] // newest first
	if got[1].Message != "round 4" || got[0].Message != "held too" {
		t.Fatalf("released messages = %q, %q; want round 4 then held too", got[1].Message, got[0].Message)
	}
	if res := sendFrom(h, runOf, a, b, "after resume"); res.Status == "paused" {
		t.Fatalf("a resumed edge held a message: %+v", res)
	}
	if _, err := h.e.LoopResume(t.Context(), api.Operator(), api.LoopResumeRequest{From: a, To: b}); err == nil {
		t.Fatal("resuming an edge that is not paused succeeded")
	}
	// The audit log holds the pause (once, however many messages it held)
	// and the operator's resume.
	recs := auditRecords(t, h)
	paused, admin := ofKind(recs, audit.KindLoopPause), ofKind(recs, audit.KindAdmin)
	if len(paused) != 1 || paused[0].Session != a || paused[0].Target != b || paused[0].Outcome != "paused" || paused[0].RunID == "" {
		t.Fatalf("loop pause records: %+v", paused)
	}
	if len(admin) != 1 || admin[0].Op != string(api.OpLoopsResume) {
		t.Fatalf("admin records: %+v", admin)
	}
}

func TestLoopBreakerPauseSurvivesRestart(t *testing.T) {
	h, runOf := loopHarness(t, func(c *config.Config) { c.Session.AgentToAgent.LoopBreaker.MaxMessages = 1 })
	a, b := "agent:main:a", "agent:main:b"
	sendFrom(h, runOf, a, b, "one")
	if res := sendFrom(h, runOf, a, b, "two"); res.Status != "paused" {
		t.Fatalf("second message = %+v", res)
	}
	// A fresh engine on the same store finds the edge paused by its held message.
	h.restartWith(func(*config.Config) {})
	list, err := h.e.LoopsList(t.Context(), api.Operator())
	if pauses := list.Pauses; err != nil || len(pauses) != 1 || pauses[0].From != a {
		t.Fatalf("pauses after restart = %+v, %v", list, err)
	}
}

func TestRateLimitPerSessionAndAgent(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "ok")}, func(c *config.Config) {
		c.Gateway.Limits.RateLimit.Session = config.ScopeRateLimit{RequestsPerSecond: 0.001, Burst: 2}
		c.Gateway.Limits.RateLimit.Agent = config.ScopeRateLimit{RequestsPerSecond: 0.001, Burst: 3}
	})
	h.chat("x", "1")
	h.chat("x", "2")
	_, err := h.e.chat(t.Context(), api.ChatRequest{SessionKey: "x", Message: "3"})
	if err == nil || domain.ErrorCode(err) != domain.CodeUnavailable || !strings.Contains(err.Error(), "gateway.limits.rateLimit.session") ||
		!strings.Contains(err.Error(), `session "agent:main:x"`) || !strings.Contains(err.Error(), "retry in") {
		t.Fatalf("third turn on one session = %v; want a retryable refusal naming the session limit", err)
	}
	h.chat("y", "1") // the agent's third unit
	_, err = h.e.chat(t.Context(), api.ChatRequest{SessionKey: "z", Message: "1"})
	if err == nil || !strings.Contains(err.Error(), "gateway.limits.rateLimit.agent") || !strings.Contains(err.Error(), `agent "main"`) {
		t.Fatalf("fourth turn of one agent = %v; want the agent limit", err)
	}
}
