package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// plannerCard is the card URL of the test config's remote agent "planner":
// port 9 on loopback, where nothing listens, so a send that passes the
// rules fails fast as unreachable.
const plannerCard = "http://127.0.0.1:9/.well-known/agent-card.json"

// stdioRequester: the operator rows have no MCP stdio cell.
const stdioRequester = "MCP over stdio acts as a requester session (the default agent's main without --session), never as the operator; its cells are in the requester rows"

// remoteRows: remote A2A agents (a2a.remotes, docs/a2a.md) — agents_list
// lists them in remotes on every surface, with allowed per the cross-agent
// rules; a send to one follows those rules, and an unreachable remote is a
// status "error" naming it, never a hang.
func remoteRows(_ *world) []row {
	remotes := func(p []byte) map[string]string {
		var v struct {
			Remotes []struct {
				ID      string `json:"id"`
				URL     string `json:"url"`
				Allowed bool   `json:"allowed"`
			} `json:"remotes"`
		}
		_ = json.Unmarshal(p, &v)
		var rows []string
		for _, r := range v.Remotes {
			rows = append(rows, fmt.Sprintf("%s %s allowed=%v", r.ID, r.URL, r.Allowed))
		}
		return map[string]string{"remotes": strings.Join(rows, "; ")}
	}
	send := m{"sessionKey": "agent:planner:main", "message": "plan it", "timeoutSeconds": 10}
	const requester = "agent:main:main"
	return []row{
		{finding: "17", name: "operator: agents list has the remote agents, allowed",
			want:   outcome{OK: true, Fields: map[string]string{"remotes": "planner " + plannerCard + " allowed=true"}},
			fields: remotes,
			cells: []cell{
				cliC(sCLI, "agents", "list", "--json"),
				cliC(sCLIGW, "agents", "list", "--json"),
				httpC(operatorToken, http.MethodGet, "/api/agents", nil),
				httpToolC(operatorToken, "", "agents_list", m{}),
				na(sWS, "agents.list has OpenClaw's closed result (no remotes); tools.invoke agents_list is the WS cell"),
				wsToolC(operatorToken, "", "agents_list", m{}),
				na(sMCPStdio, stdioRequester),
				mcpHTTPC(operatorToken, "agents_list", m{}),
			}},
		{finding: "17", name: "requester without cross-agent rights: agents list has the remotes, not allowed, without their URLs",
			want:   outcome{OK: true, Fields: map[string]string{"remotes": "planner  allowed=false"}},
			fields: remotes,
			cells: []cell{
				cliC(sCLI, "agents", "list", "--as", requester, "--json"),
				cliC(sCLIGW, "agents", "list", "--as", requester, "--json"),
				httpC(boundToken, http.MethodGet, "/api/agents", nil),
				httpToolC(operatorToken, requester, "agents_list", m{}),
				na(sWS, "agents.list has OpenClaw's closed result (no remotes); tools.invoke agents_list is the WS cell"),
				wsToolC(operatorToken, requester, "agents_list", m{}),
				stdioC(requester, "agents_list", m{}),
				mcpHTTPC(boundToken, "agents_list", m{}),
			}},
		{finding: "17", name: "send to a remote agent follows the cross-agent rules (visibility agent: forbidden, no runId)",
			want: outcome{Code: "forbidden", Msg: "Set tools.sessions.visibility=all to allow cross-agent access",
				Fields: map[string]string{"runId": ""}},
			fields:     func(p []byte) map[string]string { return map[string]string{"runId": jsonPath(p, "runId")} },
			sameFields: []string{"Msg"},
			cells: []cell{
				cliC(sCLI, "send", "agent:planner:main", "plan it", "--as", requester),
				cliC(sCLIGW, "send", "agent:planner:main", "plan it", "--as", requester),
				httpSendC(operatorToken, "agent:planner:main", m{"message": "plan it", "as": requester}),
				httpToolC(operatorToken, requester, "sessions_send", send),
				wsToolC(operatorToken, requester, "sessions_send", send),
				stdioC(requester, "sessions_send", send),
				mcpHTTPC(boundToken, "sessions_send", send),
			}},
		{finding: "17", name: "operator: send to an unreachable remote is status error naming it",
			want: outcome{Code: codeToolError, Status: "error", Msg: "remote planner: unreachable",
				Fields: map[string]string{"sessionKey": "agent:planner:main"}},
			fields: func(p []byte) map[string]string { return map[string]string{"sessionKey": jsonPath(p, "sessionKey")} },
			cells: []cell{
				cliC(sCLI, "send", "agent:planner:main", "plan it", "--timeout", "10"),
				cliC(sCLIGW, "send", "agent:planner:main", "plan it", "--timeout", "10"),
				httpSendC(operatorToken, "agent:planner:main", m{"message": "plan it", "timeoutSeconds": 10}),
				httpToolC(operatorToken, "", "sessions_send", send),
				wsToolC(operatorToken, "", "sessions_send", send),
				na(sMCPStdio, stdioRequester),
				mcpHTTPC(operatorToken, "sessions_send", send),
			}},
	}
}
