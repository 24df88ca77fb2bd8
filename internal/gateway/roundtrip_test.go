package gateway_test

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

// TestAgentWaitAnswersAsTheStore: the connection that ran `agent` has its
// `agent.wait` answered from what its own call saw end (endedruns.go); a
// second connection, which has no such memory, reads the run from the
// store. Both answers are the same bytes, for an ended run and for one
// that failed; and the final res names the session's model either way.
func TestAgentWaitAnswersAsTheStore(t *testing.T) {
	boom := "provider exploded"
	e := newEnv(t, envOptions{rules: []config.ScriptRule{{When: config.ScriptWhen{Message: "^fail"}, Error: &boom}}})
	w1, _ := e.connect(t, nil)
	w2, _ := e.connect(t, nil)
	for i, msg := range []string{"hello", "again"} {
		id := w1.send("agent", map[string]any{"message": msg, "sessionKey": "agent:main:wait-memo", "idempotencyKey": "memo-" + msg})
		var ack struct{ RunID string }
		w1.response(id).decode(t, &ack)
		final := w1.response(id)
		var fin agentFinal
		final.decode(t, &fin)
		if !final.OK || fin.Result.Meta.AgentMeta.Model != "script" || fin.Result.Meta.AgentMeta.Provider != "script" {
			t.Fatalf("round trip %d: final res = %s", i, final)
		}
		mine := w1.call("agent.wait", map[string]any{"runId": ack.RunID, "timeoutMs": 1000})
		theirs := w2.call("agent.wait", map[string]any{"runId": " " + ack.RunID + " ", "timeoutMs": 0})
		if !mine.OK || !theirs.OK || string(mine.Payload) != string(theirs.Payload) {
			t.Fatalf("round trip %d: agent.wait from the running connection %s, from another %s", i, mine, theirs)
		}
		var wr waitResult
		mine.decode(t, &wr)
		if wr.Status != "ok" || wr.RunID != ack.RunID || wr.EndedAt == 0 {
			t.Fatalf("round trip %d: agent.wait = %s", i, mine.Payload)
		}
	}
	// A failed run: the final res is an error, the waits agree.
	id := w1.send("agent", map[string]any{"message": "fail now", "sessionKey": "agent:main:wait-memo", "idempotencyKey": "memo-fail"})
	var ack struct{ RunID string }
	w1.response(id).decode(t, &ack)
	if final := w1.response(id); final.OK {
		t.Fatalf("a failing run's final res = %s", final)
	}
	mine := w1.call("agent.wait", map[string]any{"runId": ack.RunID})
	theirs := w2.call("agent.wait", map[string]any{"runId": ack.RunID})
	var wr waitResult
	mine.decode(t, &wr)
	if string(mine.Payload) != string(theirs.Payload) || wr.Status != "error" || wr.Error == "" {
		t.Fatalf("failed run: agent.wait from the running connection %s, from another %s", mine, theirs)
	}
	// An unknown run is still the store's answer.
	if res := w1.call("agent.wait", map[string]any{"runId": "no-such-run", "timeoutMs": 0}); res.OK {
		t.Fatalf("agent.wait of an unknown run = %s", res)
	}
}
