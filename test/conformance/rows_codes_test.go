package conformance

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// cliCodeC runs a CLI command with --json and reads the code of its
// {ok:false, error:{code}} answer, whatever its exit status (a usage
// error, exit 2, says invalid).
func cliCodeC(s surface, args ...string) cell {
	return custom(s, strings.Join(args, " "), func(t *testing.T, w *world) outcome {
		r := w.cli(t, w.dirOf(s), append(args, "--json")...)
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(r.stdout), &e)
		return outcome{OK: r.ok, Code: e.Error.Code, Msg: r.msg, Payload: r.stdout + r.msg}
	})
}

// codeRows: issue 32 — every refusal carries a machine-readable code
// (internal/domain's codes), the same one on every surface: the HTTP
// error's code, the WS error's details.code, a tool payload's code (or
// its forbidden status) and an MCP tool error's _meta, the CLI's
// {ok:false, error:{code}} under --json, A2A's data.code.
func codeRows(_ *world) []row {
	// A sessionId prefix that names no session (an unknown key is an
	// empty history, as in OpenClaw).
	unknown := "d386f8db-6fdf-4c7e"
	bogus := m{"kinds": []string{"bogus"}}
	send := m{"sessionKey": "agent:main:f1", "message": "from a reader", "timeoutSeconds": 0}
	return []row{
		{finding: "32", name: "code not_found: an unknown sessionId's history, an unknown task", exactCode: true,
			want: outcome{Code: "not_found"},
			cells: []cell{
				cliCodeC(sCLI, "sessions", "history", unknown),
				cliCodeC(sCLIGW, "sessions", "history", unknown),
				httpC(operatorToken, http.MethodGet, "/api/sessions/"+esc(unknown)+"/history", nil),
				httpToolC(operatorToken, "", "sessions_history", m{"sessionKey": unknown}),
				wsC(operatorToken, "chat.history", m{"sessionKey": unknown}),
				wsToolC(operatorToken, "", "sessions_history", m{"sessionKey": unknown}),
				stdioC("", "sessions_history", m{"sessionKey": unknown}),
				mcpHTTPC(operatorToken, "sessions_history", m{"sessionKey": unknown}),
				a2aC(operatorToken, "GetTask", m{"id": "no-such-task-codes"}),
			}},
		{finding: "32", name: "code invalid: a bad parameter", exactCode: true,
			want: outcome{Code: "invalid"},
			cells: []cell{
				cliCodeC(sCLI, "sessions", "list", "--kinds", "bogus"),
				cliCodeC(sCLIGW, "sessions", "list", "--kinds", "bogus"),
				httpC(operatorToken, http.MethodGet, "/api/sessions?kinds=bogus", nil),
				httpToolC(operatorToken, "", "sessions_list", bogus),
				wsToolC(operatorToken, "", "sessions_list", bogus),
				stdioC("", "sessions_list", bogus),
				mcpHTTPC(operatorToken, "sessions_list", bogus),
				a2aC(operatorToken, "ListTasks", m{"pageSize": 0}),
			}},
		{finding: "32", name: "code forbidden: a read token may not send", exactCode: true,
			want: outcome{Code: "forbidden"},
			cells: []cell{
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner),
				httpC(readToken, http.MethodPost, "/api/sessions/agent:main:f1/chat", m{"message": "from a reader"}),
				httpToolC(readToken, "", "sessions_send", send),
				wsToolC(readToken, "", "sessions_send", send),
				wsC(readToken, "chat.send", m{"sessionKey": "agent:main:f1", "message": "from a reader", "idempotencyKey": "codes-reader"}),
				mcpHTTPC(readToken, "sessions_send", send),
				a2aC(readToken, "SendMessage", a2aMsg("codes-reader", "codes", "from a reader")),
			}},
	}
}
