package engine

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestForkKeepsInjectedMessagesProvenance: a message another session sent
// into the parent is copied into a forked child with its original
// provenance (inter_session, from the sender), not re-stamped as the
// parent's own; the parent's own conversation is marked fork.
func TestForkKeepsInjectedMessagesProvenance(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{Session: ":subagent:"}, "child done"),
	}, agentVisibility)
	h.chat("main", "my own words")
	out := h.call(Requester{SessionKey: "agent:main:intruder"}, api.ToolSessionsSend, `{"sessionKey":"agent:main:main","message":"injected words","timeoutSeconds":0}`)
	if out.IsError {
		t.Fatalf("send: %s", out.JSON())
	}
	h.waitFor("the injected message", func() bool {
		for _, m := range h.history("agent:main:main") {
			if m.Content.Text() == "injected words" {
				return true
			}
		}
		return false
	})
	h.e.Idle(t.Context())
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"continue","context":"fork"}`))
	h.endedRun(res.RunID)
	found := 0
	for _, m := range h.history(res.ChildSessionKey) {
		switch m.Content.Text() {
		case "injected words":
			found++
			if p := m.Provenance; p == nil || p.Kind != domain.ProvenanceInterSession || p.SourceSessionKey != "agent:main:intruder" {
				t.Errorf("forked injected message provenance = %+v, want inter_session from agent:main:intruder", p)
			}
		case "my own words":
			found++
			if p := m.Provenance; p == nil || p.Kind != domain.ProvenanceFork || p.SourceSessionKey != "agent:main:main" {
				t.Errorf("forked own message provenance = %+v, want fork from agent:main:main", p)
			}
		}
	}
	if found != 2 {
		t.Fatalf("the child got %d of the 2 messages", found)
	}
}
