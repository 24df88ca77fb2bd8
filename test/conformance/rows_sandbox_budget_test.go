package conformance

import "net/http"

// sandboxBudgetRows: a sandbox applies to sessions made before it was
// turned on, and a spawn given the rest of a budget too small to pay for
// anything is refused.
func sandboxBudgetRows(_ *world) []row {
	other := m{"sessionKey": lateboxOther}
	tiny := m{"task": "budgeted child", "budget": m{"tokens": 5}}
	return []row{
		{finding: "28.1", name: "a session made before its agent's sandbox was turned on is sandboxed now: another session of its agent is forbidden",
			want: outcome{Code: "forbidden", Msg: "Session not visible from this sandboxed agent session"},
			cells: []cell{
				cliC(sCLI, "sessions", "history", lateboxOther, "--as", lateboxKey),
				cliC(sCLIGW, "sessions", "history", lateboxOther, "--as", lateboxKey),
				httpC(operatorToken, http.MethodGet, "/api/sessions/"+lateboxOther+"/history?as="+esc(lateboxKey), nil),
				httpToolC(operatorToken, lateboxKey, "sessions_history", other),
				wsToolC(operatorToken, lateboxKey, "sessions_history", other),
				stdioC(lateboxKey, "sessions_history", other),
				na(sMCPHTTP, "MCP over HTTP has no way to name a requester"),
			}},
		{finding: "28.5", name: "a spawn whose budget cannot pay for the child's first prompt is refused",
			want: outcome{Code: "forbidden", Msg: "sessions_spawn refused: nothing left to give the child"},
			cells: []cell{
				cliC(sCLI, "spawn", "budgeted child", "--budget-tokens", "5"),
				cliC(sCLIGW, "spawn", "budgeted child", "--budget-tokens", "5"),
				httpC(operatorToken, http.MethodPost, "/api/spawn", tiny),
				httpToolC(operatorToken, "", "sessions_spawn", tiny),
				wsC(operatorToken, "sessions.spawn", tiny),
				wsToolC(operatorToken, "", "sessions_spawn", tiny),
				stdioC("", "sessions_spawn", tiny),
				mcpHTTPC(operatorToken, "sessions_spawn", tiny),
			}},
	}
}
