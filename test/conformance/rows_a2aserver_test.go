package conformance

import (
	"net/http"
	"testing"
)

// a2aServerRows: the A2A server is one more surface in front of
// the same gate. SendMessage is a chat into agent:<id>:a2a:<contextId>,
// GetTask is runs.get, CancelTask is runs.cancel: each row puts the A2A
// cell beside the HTTP (and WS) cells of the same operation, for the
// principals whose rights differ. (rows_a2a_test.go is about the
// agent-to-agent steps of sessions_send, an older meaning of "a2a".)
func a2aServerRows(_ *world) []row {
	noCLI := []cell{na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner)}
	noMCP := na(sMCPHTTP, noMCPNative)
	readChat := "agent:main:a2a:conf-read"
	boundChat := "agent:main:a2a:conf-bound"
	return []row{
		{finding: "17", name: "read token: chat (A2A SendMessage) refused for missing scope",
			want: outcome{Code: "forbidden", Msg: "missing scope"},
			cells: append([]cell{
				httpC(readToken, http.MethodPost, "/api/sessions/"+esc(readChat)+"/chat", m{"message": "from a reader"}),
				wsC(readToken, "chat.send", m{"sessionKey": readChat, "message": "from a reader", "idempotencyKey": "a2a-read"}),
				a2aC(readToken, "SendMessage", a2aMsg("a2a-read-msg", "conf-read", "from a reader")),
				noMCP,
			}, noCLI...)},
		{finding: "17", name: "write token: chat (A2A SendMessage) into an A2A context session allowed",
			want: outcome{OK: true},
			cells: append([]cell{
				httpC(writeToken, http.MethodPost, "/api/sessions/"+esc("agent:main:a2a:conf-write-http")+"/chat", m{"message": "from a writer"}),
				wsC(writeToken, "chat.send", m{"sessionKey": "agent:main:a2a:conf-write-ws", "message": "from a writer", "idempotencyKey": "a2a-write"}),
				a2aC(writeToken, "SendMessage", a2aMsg("a2a-write-msg", "conf-write-a2a", "from a writer")),
				noMCP,
			}, noCLI...)},
		{finding: "17", name: "bound token: chat (A2A SendMessage) into a session outside its tree refused",
			want: outcome{Code: "forbidden"},
			cells: append([]cell{
				httpC(boundToken, http.MethodPost, "/api/sessions/"+esc(boundChat)+"/chat", m{"message": "intrude"}),
				wsC(boundToken, "chat.send", m{"sessionKey": boundChat, "message": "intrude", "idempotencyKey": "a2a-bound"}),
				a2aC(boundToken, "SendMessage", a2aMsg("a2a-bound-msg", "conf-bound", "intrude")),
				noMCP,
			}, noCLI...)},
		{finding: "17", name: "read token: runs get (A2A GetTask) answers the run and its status",
			want: outcome{OK: true, Status: "ok"},
			cells: append([]cell{
				custom(sHTTP, "GET /api/runs/{id}", func(t *testing.T, w *world) outcome {
					return w.httpOutcome(t, readToken, http.MethodGet, "/api/runs/"+w.ids.mainRun, nil)
				}),
				custom(sWS, "runs.get", func(t *testing.T, w *world) outcome {
					return w.wsOutcome(t, readToken, "runs.get", m{"runId": w.ids.mainRun})
				}),
				custom(sA2A, "GetTask", func(t *testing.T, w *world) outcome {
					return w.a2aOutcome(t, readToken, "main", "GetTask", m{"id": w.ids.mainRun})
				}),
				noMCP,
			}, noCLI...)},
		{finding: "17", name: "bound token: runs get (A2A GetTask) of another session's run is not found",
			want: outcome{Code: "not_found", Msg: "not found"},
			cells: append([]cell{
				custom(sHTTP, "GET /api/runs/{id}", func(t *testing.T, w *world) outcome {
					return w.httpOutcome(t, boundToken, http.MethodGet, "/api/runs/"+w.ids.foreignRun, nil)
				}),
				custom(sA2A, "GetTask", func(t *testing.T, w *world) outcome {
					return w.a2aOutcome(t, boundToken, "main", "GetTask", m{"id": w.ids.foreignRun})
				}),
				na(sWS, "covered by runsReadRows"), noMCP,
			}, noCLI...)},
		{finding: "17", name: "read token: runs cancel (A2A CancelTask) refused for missing scope",
			want: outcome{Code: "forbidden", Msg: "missing scope"},
			cells: append([]cell{
				custom(sHTTP, "POST /api/runs/{id}/cancel", func(t *testing.T, w *world) outcome {
					return w.httpOutcome(t, readToken, http.MethodPost, "/api/runs/"+w.ids.mainRun+"/cancel", nil)
				}),
				custom(sWS, "runs.cancel", func(t *testing.T, w *world) outcome {
					return w.wsOutcome(t, readToken, "runs.cancel", m{"runId": w.ids.mainRun})
				}),
				custom(sA2A, "CancelTask", func(t *testing.T, w *world) outcome {
					return w.a2aOutcome(t, readToken, "main", "CancelTask", m{"id": w.ids.mainRun})
				}),
				noMCP,
			}, noCLI...)},
		{finding: "17", name: "a bad token is refused before anything runs",
			want: outcome{Code: "unauthorized"},
			cells: append([]cell{
				httpC("not-a-token", http.MethodGet, "/api/runs", nil),
				a2aC("not-a-token", "GetTask", m{"id": "x"}),
				na(sWS, "the WS handshake refusal is covered by the gateway's tests"), noMCP,
			}, noCLI...)},
	}
}
