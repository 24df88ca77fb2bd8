package conformance

import (
	"encoding/json"
	"net/http"
	"testing"
)

// a2aOwnerRows: an A2A conversation belongs to the caller that opened it.
// Under tools.sessions.visibility "agent" the bound tokens (of agent
// guest) may see every session of guest, but a task of a conversation
// another caller opened with the same contextId does not exist for them,
// whether read or continued.
func a2aOwnerRows(_ *world) []row {
	elsewhere := "contextIds and tasks of A2A conversations exist on the A2A endpoint only; elsewhere a session is named by its key and visibility decides"
	others := []cell{
		na(sCLI, elsewhere), na(sCLIGW, elsewhere), na(sHTTP, elsewhere), na(sWS, elsewhere),
		na(sMCPStdio, elsewhere), na(sMCPHTTP, elsewhere),
	}
	return []row{
		{finding: "28.7", name: "another caller's A2A task in the same contextId is not found for a bound token",
			want: outcome{Code: "not_found", Msg: "task not found"},
			cells: append([]cell{
				custom(sA2A, "GetTask", func(t *testing.T, w *world) outcome {
					id := w.operatorTask(t, "conf-owner-get")
					return w.a2aOutcome(t, boundToken, "guest", "GetTask", m{"id": id})
				}),
				custom(sA2A, "SendMessage {taskId}", func(t *testing.T, w *world) outcome {
					id := w.operatorTask(t, "conf-owner-send")
					p := a2aMsg("conf-owner-send-bound", "conf-owner-send", "join in")
					p["message"].(m)["taskId"] = id
					return w.a2aOutcome(t, boundToken, "guest", "SendMessage", p)
				}),
			}, others...)},
	}
}

// operatorTask opens, as the operator, an A2A conversation with contextId
// ctxID on agent guest (the bound tokens' agent) and returns its task id.
func (w *world) operatorTask(t *testing.T, ctxID string) string {
	t.Helper()
	st, b := w.httpDo(t, operatorToken, http.MethodPost, "/a2a/agents/guest",
		m{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": a2aMsg(ctxID+"-operator", ctxID, "the operator's words")},
		"A2A-Version", "1.0")
	var r struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || st != http.StatusOK || r.Result.Task.ID == "" {
		t.Fatalf("operator SendMessage in %s: %d %s", ctxID, st, b)
	}
	return r.Result.Task.ID
}
