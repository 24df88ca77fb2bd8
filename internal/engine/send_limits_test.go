package engine

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// a2aQuiet answers every reply-back turn and announce step with silence.
var a2aQuiet = rule(config.ScriptWhen{System: "Agent-to-agent (reply|announce) step:"}, "REPLY_SKIP")

// waitRunEnd waits for run id to reach a terminal status and returns it.
func waitRunEnd(t *testing.T, h *harness, id string) domain.Run {
	t.Helper()
	r, err := h.e.waitRun(t.Context(), id, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !domain.RunTerminal(r.Status) {
		t.Fatalf("run %s did not end: %s", id, r.Status)
	}
	return r
}

// followUpsOf returns every run whose parent is runID (reply-back turns
// and announce steps are written in the transaction that ends runID, so
// once runID is terminal this list is final).
func followUpsOf(t *testing.T, h *harness, runID string) []domain.Run {
	t.Helper()
	runs, err := h.st.ListRuns(t.Context(), domain.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.Run
	for _, r := range runs {
		if r.ParentRunID == runID && (r.Kind == domain.RunKindReply || r.Kind == domain.RunKindAnnounce) {
			out = append(out, r)
		}
	}
	return out
}

// TestSendMaxHopsRefusesALongChain proves session.agentToAgent.maxHops
// refuses a send whose chain would grow past the limit even though it
// revisits no session (main → a → b, then b → c with maxHops=2).
func TestSendMaxHopsRefusesALongChain(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^start$"}, "sessions_send",
			map[string]any{"sessionKey": "agent:main:a", "message": "hop1", "timeoutSeconds": 0}),
		toolCall(config.ScriptWhen{Session: ":a$", Role: "user", Message: "^hop1$"}, "sessions_send",
			map[string]any{"sessionKey": "agent:main:b", "message": "hop2", "timeoutSeconds": 0}),
		toolCall(config.ScriptWhen{Session: ":b$", Role: "user", Message: "^hop2$"}, "sessions_send",
			map[string]any{"sessionKey": "agent:main:c", "message": "hop3", "timeoutSeconds": 0}),
		a2aQuiet,
	}, func(c *config.Config) { agentVisibility(c); c.Session.AgentToAgent.MaxHops = 2 })
	h.chat("main", "start")
	var b []domain.Run
	h.waitFor("b's send run ends", func() bool {
		b = runsOf(h, "agent:main:b", domain.RunKindSend)
		return len(b) == 1 && domain.RunTerminal(b[0].Status)
	})
	want := "sessions_send refused: this chain of inter-session messages already has 2 hops (agent:main:main → agent:main:a → agent:main:b → agent:main:c; session.agentToAgent.maxHops=2)"
	if !strings.Contains(b[0].Reply, want) {
		t.Fatalf("b's tool result (its reply) = %q, want %q", b[0].Reply, want)
	}
	if runs := runsOf(h, "agent:main:c", domain.RunKindSend); len(runs) != 0 {
		t.Fatalf("refused send still ran in c: %+v", runs)
	}
	// The hop before the limit went through.
	if a := runsOf(h, "agent:main:a", domain.RunKindSend); len(a) != 1 || strings.Contains(a[0].Reply, "refused") {
		t.Fatalf("a's send run = %+v, want one that was not refused", a)
	}
}

// TestSendNoReplyIsSilence proves NO_REPLY is a stop (unlike OpenClaw): a
// primary NO_REPLY ends the exchange with no reply-back and no announce;
// a NO_REPLY reply-back turn ends the loop, and a NO_REPLY announce posts
// nothing to the target's channel.
func TestSendNoReplyIsSilence(t *testing.T) {
	t.Run("primary reply", func(t *testing.T) {
		h := newHarness(t, []config.ScriptRule{
			toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^go$"}, "sessions_send",
				map[string]any{"sessionKey": research, "message": "ping", "timeoutSeconds": 0}),
			rule(config.ScriptWhen{System: "Agent-to-agent (reply|announce) step:"}, "pong"),
			rule(config.ScriptWhen{Session: "research$", Message: "^ping$"}, " NO_REPLY "),
		}, agentVisibility)
		h.chat("main", "go")
		var sends []domain.Run
		h.waitFor("research's send run", func() bool { sends = runsOf(h, research, domain.RunKindSend); return len(sends) == 1 })
		r := waitRunEnd(t, h, sends[0].ID)
		if r.Status != domain.RunOK {
			t.Fatalf("send run = %+v", r)
		}
		if f := followUpsOf(t, h, r.ID); len(f) != 0 {
			t.Fatalf("NO_REPLY primary reply started %d follow-ups, the first a %s run", len(f), f[0].Kind)
		}
		// From outside a run, the answer omits the silent reply.
		res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"research","message":"ping"}`))
		if res.Status != "ok" || res.Reply != "" {
			t.Fatalf("send answer = %+v, want ok without reply", res)
		}
	})
	t.Run("reply turn and announce", func(t *testing.T) {
		h := newHarness(t, []config.ScriptRule{
			toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^go$"}, "sessions_send",
				map[string]any{"sessionKey": research, "message": "ping", "timeoutSeconds": 0}),
			// Turn 1 (on main) would go on with "pong" unless NO_REPLY stops it.
			rule(config.ScriptWhen{Session: ":main:main$", System: "Agent-to-agent reply step:"}, "NO_REPLY"),
			rule(config.ScriptWhen{System: "Agent-to-agent reply step:"}, "pong"),
			rule(config.ScriptWhen{System: "Agent-to-agent announce step:"}, "NO_REPLY"),
			rule(config.ScriptWhen{Session: "research$", Message: "^ping$"}, "an answer"),
		}, func(c *config.Config) { agentVisibility(c); c.Session.AgentToAgent.MaxPingPongTurns = 5 })
		h.chat("main", "go")
		var ann []domain.Run
		h.waitFor("announce step", func() bool { ann = runsOf(h, research, domain.RunKindAnnounce); return len(ann) == 1 })
		a := waitRunEnd(t, h, ann[0].ID)
		if a.Status != domain.RunOK || strings.TrimSpace(a.Reply) != "NO_REPLY" {
			t.Fatalf("announce step = %+v", a)
		}
		turns := len(runsOf(h, "agent:main:main", domain.RunKindReply)) + len(runsOf(h, research, domain.RunKindReply))
		if turns != 1 {
			t.Fatalf("reply turns = %d, want 1 (NO_REPLY on turn 1 stops the loop)", turns)
		}
		if items := outboxOf(h, domain.OutboxAnnounce); len(items) != 0 {
			t.Fatalf("NO_REPLY announce posted: %+v", items)
		}
	})
}

// TestSendAmbiguousReferences proves two sessions sharing a sessionId, or
// a label, are refused with "Multiple sessions found" naming both.
func TestSendAmbiguousReferences(t *testing.T) {
	h := newHarness(t, nil, agentVisibility)
	// patch keeps labels unique per agent; spawned children may share one.
	c1 := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"first","label":"dup"}`))
	c2 := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"second","label":"dup"}`))
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"label":"dup","message":"hi"}`))
	if res.Status != "error" || !strings.HasPrefix(res.Error, "Multiple sessions found with label: dup (") ||
		!strings.Contains(res.Error, c1.ChildSessionKey) || !strings.Contains(res.Error, c2.ChildSessionKey) || res.RunID != "" {
		t.Fatalf("ambiguous label: %+v", res)
	}
	h.chat("agent:main:one", "hello")

	// Two rows with one sessionId (the store does not forbid it, e.g. a
	// copied session); resolution is by exact id.
	one, err := h.st.GetSession(t.Context(), "agent:main:one")
	if err != nil {
		t.Fatal(err)
	}
	twin := one
	twin.Key, twin.Label = "agent:main:twin", ""
	if err := h.st.Update(t.Context(), func(tx domain.Tx) error { return tx.PutSession(twin) }); err != nil {
		t.Fatal(err)
	}
	wantPrefix := "Multiple sessions found for sessionId: " + one.SessionID + " ("
	res = sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"`+one.SessionID+`","message":"hi"}`))
	if res.Status != "error" || !strings.HasPrefix(res.Error, wantPrefix) || !strings.Contains(res.Error, "agent:main:twin") || res.RunID != "" {
		t.Fatalf("ambiguous sessionId via sessions_send: %+v", res)
	}
	_, err = h.e.History(t.Context(), api.Operator(), api.HistoryRequest{SessionKey: one.SessionID})
	if !strings.HasPrefix(domain.ErrorMessage(err), wantPrefix) {
		t.Fatalf("ambiguous sessionId via History: %v", err)
	}
}

// TestSpawnRetainOnSessionKeep proves attachments survive the announce
// only with retainOnSessionKeep and cleanup "keep".
func TestSpawnRetainOnSessionKeep(t *testing.T) {
	tests := []struct {
		name     string
		retain   bool
		cleanup  string
		wantKept bool
	}{
		{"retained, keep", true, "keep", true},
		{"retained, delete", true, "delete", false},
		{"not retained, keep", false, "keep", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{Session: ":subagent:"}, "read it")}, func(c *config.Config) {
				c.Tools.SessionsSpawn.Attachments.Enabled = true
				c.Tools.SessionsSpawn.Attachments.RetainOnSessionKeep = tt.retain
			})
			content := base64.StdEncoding.EncodeToString([]byte("payload"))
			res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn,
				`{"task":"use it","cleanup":"`+tt.cleanup+`","attachments":[{"name":"a.txt","content":"`+content+`","encoding":"base64"}]}`))
			dir := filepath.Join(h.dir, "agents", "main", "workspace", res.Attachments.RelDir)
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
				t.Fatalf("attachment not written: %v", err)
			}
			// Removal happens in the announce delivery, before the outbox
			// item is marked delivered.
			h.waitFor("announce delivered", func() bool {
				items := outboxOf(h, domain.OutboxSubagentAnnounce)
				return len(items) == 1 && items[0].Status == domain.OutboxDelivered
			})
			_, err := os.Stat(filepath.Join(dir, "a.txt"))
			if kept := err == nil; kept != tt.wantKept {
				t.Fatalf("attachment kept = %v (stat err %v), want %v", kept, err, tt.wantKept)
			}
		})
	}
}
