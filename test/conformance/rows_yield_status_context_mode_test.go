package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Rows for sessions_yield, session_status,
// sessions_spawn's context and sessions_send's mode.

// statusCardKeys are the keys every session_status card carries.
var statusCardKeys = []string{"status", "sessionKey", "agentId", "model", "tokens", "estimatedCostUsd", "activeRun",
	"queuedRuns", "childrenRunning", "sendPolicy", "lastActivity"}

// statusFields: whether the card is complete, and its model and agent.
func statusFields(p []byte) map[string]string {
	var v map[string]json.RawMessage
	_ = json.Unmarshal(p, &v)
	var missing []string
	for _, k := range statusCardKeys {
		if _, ok := v[k]; !ok {
			missing = append(missing, k)
		}
	}
	return map[string]string{"missing": strings.Join(missing, ","), "model": jsonPath(p, "model"), "agentId": jsonPath(p, "agentId")}
}

// notifyFields: a notify's answer has a messageId and no runId.
func notifyFields(p []byte) map[string]string {
	return map[string]string{"messageId set": fmt.Sprint(jsonPath(p, "messageId") != ""), "runId": jsonPath(p, "runId")}
}

func yieldStatusContextModeRows(_ *world) []row {
	noCLI := []cell{na(sCLI, noCLIToolCall), na(sCLIGW, noCLIToolCall)}
	tokenOnly := []cell{na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner)}
	status := m{"sessionKey": "main"}
	badModel := m{"sessionKey": "main", "model": "nope/model"}
	yield := m{"message": "waiting"}
	notify := func(key string) m { return m{"sessionKey": key, "message": "fyi: from " + key, "mode": "notify"} }
	fork := m{"task": "carry on", "context": "fork"}
	badFork := m{"task": "carry on", "context": "shared"}
	return []row{
		{finding: "15", name: "session_status answers the full card on every surface",
			want:   outcome{OK: true, Status: "ok", Fields: map[string]string{"missing": "", "model": "script", "agentId": "main"}},
			fields: statusFields,
			cells: []cell{
				cliC(sCLI, "sessions", "status", "main", "--json"),
				cliC(sCLIGW, "sessions", "status", "main", "--json"),
				httpToolC(operatorToken, "", "session_status", status),
				httpToolC(readToken, "", "session_status", status),
				wsToolC(operatorToken, "", "session_status", status),
				wsToolC(readToken, "", "session_status", status),
				stdioC("", "session_status", status),
				mcpHTTPC(operatorToken, "session_status", status),
			}},
		{finding: "15", name: "session_status model switch to an unknown model refused on every surface",
			want: outcome{Code: "invalid", Msg: "nope/model"},
			cells: []cell{
				cliC(sCLI, "sessions", "status", "main", "--model", "nope/model"),
				cliC(sCLIGW, "sessions", "status", "main", "--model", "nope/model"),
				httpToolC(operatorToken, "", "session_status", badModel),
				wsToolC(operatorToken, "", "session_status", badModel),
				stdioC("", "session_status", badModel),
				mcpHTTPC(operatorToken, "session_status", badModel),
			}},
		{finding: "15", name: "session_status model switch needs admin, as sessions.patch",
			want: outcome{Code: "forbidden", Msg: "missing scope: operator.admin"},
			cells: append([]cell{
				httpToolC(writeToken, "", "session_status", m{"model": "script"}),
				wsToolC(writeToken, "", "session_status", m{"model": "script"}),
				mcpHTTPC(writeToken, "session_status", m{"model": "script"}),
				mcpHTTPC(boundToken, "session_status", m{"model": "script"}),
			}, tokenOnly...)},
		{finding: "15", name: "session_status of a session the bound token may not see is forbidden",
			want: outcome{Code: "forbidden"},
			cells: append([]cell{
				httpToolC(boundToken, "", "session_status", m{"sessionKey": foreignKey}),
				wsToolC(boundToken, "", "session_status", m{"sessionKey": foreignKey}),
				mcpHTTPC(boundToken, "session_status", m{"sessionKey": foreignKey}),
			}, tokenOnly...)},
		{finding: "15", name: "sessions_yield outside a run answers No session context",
			want: outcome{Code: "invalid", Status: "error", Msg: "No session context"},
			cells: append([]cell{
				httpToolC(operatorToken, "", "sessions_yield", yield),
				httpToolC(boundToken, "", "sessions_yield", yield),
				wsToolC(operatorToken, "", "sessions_yield", yield),
				stdioC("", "sessions_yield", yield),
				mcpHTTPC(operatorToken, "sessions_yield", yield),
			}, noCLI...)},
		{finding: "15", name: "sessions_yield needs write",
			want: outcome{Code: "forbidden", Msg: "missing scope: operator.write"},
			cells: append([]cell{
				httpToolC(readToken, "", "sessions_yield", yield),
				wsToolC(readToken, "", "sessions_yield", yield),
				mcpHTTPC(readToken, "sessions_yield", yield),
			}, tokenOnly...)},
		{finding: "15", name: "sessions_send mode notify answers {status: ok, messageId} and starts no run",
			want:   outcome{OK: true, Status: "ok", Fields: map[string]string{"messageId set": "true", "runId": ""}},
			fields: notifyFields,
			cells: []cell{
				cliC(sCLI, "send", "agent:main:notify-cli", "fyi", "--mode", "notify", "--json"),
				cliC(sCLIGW, "send", "agent:main:notify-cligw", "fyi", "--mode", "notify", "--json"),
				httpSendC(operatorToken, "agent:main:notify-http", m{"message": "fyi", "mode": "notify"}),
				httpToolC(operatorToken, "", "sessions_send", notify("agent:main:notify-tool")),
				wsToolC(operatorToken, "", "sessions_send", notify("agent:main:notify-ws")),
				stdioC("", "sessions_send", notify("agent:main:notify-stdio")),
				mcpHTTPC(operatorToken, "sessions_send", notify("agent:main:notify-mcp")),
			}},
		{finding: "15", name: "sessions_send with an unknown mode refused",
			want: outcome{Code: "invalid", Msg: "mode must be"},
			cells: []cell{
				cliC(sCLI, "send", "agent:main:bad-mode", "x", "--mode", "loud"),
				cliC(sCLIGW, "send", "agent:main:bad-mode", "x", "--mode", "loud"),
				httpC(operatorToken, http.MethodPost, "/api/sessions/agent%3Amain%3Abad-mode/send", m{"message": "x", "mode": "loud"}),
				httpToolC(operatorToken, "", "sessions_send", m{"sessionKey": "agent:main:bad-mode", "message": "x", "mode": "loud"}),
				wsToolC(operatorToken, "", "sessions_send", m{"sessionKey": "agent:main:bad-mode", "message": "x", "mode": "loud"}),
				stdioC("", "sessions_send", m{"sessionKey": "agent:main:bad-mode", "message": "x", "mode": "loud"}),
				mcpHTTPC(operatorToken, "sessions_send", m{"sessionKey": "agent:main:bad-mode", "message": "x", "mode": "loud"}),
			}},
		{finding: "15", name: "sessions_spawn context fork accepted on every surface",
			want: outcome{OK: true, Status: "accepted"},
			cells: []cell{
				cliC(sCLI, "spawn", "carry on", "--context", "fork", "--json"),
				cliC(sCLIGW, "spawn", "carry on", "--context", "fork", "--json"),
				httpC(operatorToken, http.MethodPost, "/api/spawn", fork),
				httpToolC(operatorToken, "", "sessions_spawn", fork),
				wsToolC(operatorToken, "", "sessions_spawn", fork),
				wsC(operatorToken, "sessions.spawn", fork),
				stdioC("", "sessions_spawn", fork),
				mcpHTTPC(operatorToken, "sessions_spawn", fork),
			}},
		{finding: "15", name: "sessions_spawn with an unknown context refused",
			want: outcome{Code: "invalid", Msg: "context must be"},
			cells: []cell{
				cliC(sCLI, "spawn", "carry on", "--context", "shared"),
				cliC(sCLIGW, "spawn", "carry on", "--context", "shared"),
				httpC(operatorToken, http.MethodPost, "/api/spawn", badFork),
				httpToolC(operatorToken, "", "sessions_spawn", badFork),
				wsToolC(operatorToken, "", "sessions_spawn", badFork),
				wsC(operatorToken, "sessions.spawn", badFork),
				stdioC("", "sessions_spawn", badFork),
				mcpHTTPC(operatorToken, "sessions_spawn", badFork),
			}},
	}
}
