package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// Rows for the reading operations AgentsList, Defaults, GetRun and
// ListRuns, on every surface that carries them.

// agentsRows: AgentsList (CLI agents list, GET /api/agents, WS
// agents.list, the agents_list tool).
func agentsRows(_ *world) []row {
	ids := func(p []byte) map[string]string {
		var v struct {
			Agents []struct {
				ID string `json:"id"`
			} `json:"agents"`
		}
		_ = json.Unmarshal(p, &v)
		main, ghost := false, false
		for _, a := range v.Agents {
			main = main || a.ID == "main"
			ghost = ghost || a.ID == "ghost"
		}
		return map[string]string{"lists main": fmt.Sprint(main), "lists an unknown agent": fmt.Sprint(ghost)}
	}
	return []row{
		{finding: "10", name: "operator: agents list answers the configured agents on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"lists main": "true", "lists an unknown agent": "false"}},
			fields: ids,
			cells: []cell{
				cliC(sCLI, "agents", "list"),
				cliC(sCLIGW, "agents", "list"),
				httpC(operatorToken, http.MethodGet, "/api/agents", nil),
				httpToolC(operatorToken, "", "agents_list", m{}),
				wsC(operatorToken, "agents.list", m{}),
				wsToolC(operatorToken, "", "agents_list", m{}),
				stdioC("", "agents_list", m{}),
				mcpHTTPC(operatorToken, "agents_list", m{}),
			}},
		{finding: "2", name: "read, bound and sandboxed principals: agents list allowed with one shape per surface",
			want: outcome{OK: true},
			cells: []cell{
				cliC(sCLI, "agents", "list", "--as", sandboxKey),
				cliC(sCLIGW, "agents", "list", "--as", sandboxKey),
				httpC(readToken, http.MethodGet, "/api/agents", nil),
				httpC(boundToken, http.MethodGet, "/api/agents", nil),
				httpToolC(boundToken, "", "agents_list", m{}),
				wsC(boundToken, "agents.list", m{}),
				wsToolC(operatorToken, sandboxKey, "agents_list", m{}),
				stdioC(sandboxKey, "agents_list", m{}),
				mcpHTTPC(boundToken, "agents_list", m{}),
			}},
	}
}

// defaultsRows: Defaults (GET /api/defaults): every principal may read
// its own defaults.
func defaultsRows(_ *world) []row {
	return []row{{finding: "10", name: "defaults: the main key as the principal sees it",
		want:   outcome{OK: true, Fields: map[string]string{"mainKey": anyValue}},
		fields: func(p []byte) map[string]string { return map[string]string{"mainKey": jsonPath(p, "mainKey")} },
		cells: []cell{
			httpC(operatorToken, http.MethodGet, "/api/defaults", nil),
			httpC(readToken, http.MethodGet, "/api/defaults", nil),
			httpC(boundToken, http.MethodGet, "/api/defaults", nil),
			na(sCLI, "no CLI command prints the session defaults"), na(sCLIGW, "no CLI command prints the session defaults"),
			na(sWS, "the WS protocol carries the defaults inside sessions.list and agents.list"),
			na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
		}}}
}

// runsReadRows: GetRun (CLI runs get, GET /api/runs/{id}, WS runs.get) and
// ListRuns (CLI runs list, GET /api/runs).
func runsReadRows(_ *world) []row {
	get := func(s surface, via, token string, id func(w *world) string) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			switch s {
			case sCLI:
				return w.cliOutcome(t, s, "runs", "get", w.ids.inprocMainRun)
			case sCLIGW:
				return w.cliOutcome(t, s, "runs", "get", id(w))
			case sWS:
				return w.wsOutcome(t, token, "runs.get", m{"runId": id(w)})
			}
			return w.httpOutcome(t, token, http.MethodGet, "/api/runs/"+id(w), nil)
		})
	}
	mainRun := func(w *world) string { return w.ids.mainRun }
	foreignRun := func(w *world) string { return w.ids.foreignRun }
	noMCP := []cell{na(sMCPStdio, "no tool reads a run without waiting (runs_wait: see the wait rows)"), na(sMCPHTTP, "no tool reads a run without waiting")}
	return []row{
		{finding: "6", name: "runs get answers the run and its status",
			want:   outcome{OK: true, Status: "ok", Fields: map[string]string{"runId": anyValue}},
			fields: func(p []byte) map[string]string { return map[string]string{"runId": firstOf(p, "runId", "run.runId")} },
			cells: append([]cell{
				get(sCLI, "runs get", "", mainRun),
				get(sCLIGW, "runs get", "", mainRun),
				get(sHTTP, "GET /api/runs/{id} operator", operatorToken, mainRun),
				get(sHTTP, "GET /api/runs/{id} read token", readToken, mainRun),
				get(sWS, "runs.get operator", operatorToken, mainRun),
			}, noMCP...)},
		{finding: "2", name: "bound token: runs get of another session's run is not found",
			want: outcome{Code: "not_found", Msg: "not found"},
			cells: append([]cell{
				get(sHTTP, "GET /api/runs/{id} bound", boundToken, foreignRun),
				get(sWS, "runs.get bound", boundToken, foreignRun),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator),
			}, noMCP...)},
		{finding: "2", name: "runs list answers {runs} with and without a gateway",
			want:   outcome{OK: true, Fields: map[string]string{"runs is a list": "true"}},
			fields: func(p []byte) map[string]string { return map[string]string{"runs is a list": has(p, `"runs":[`)} },
			cells: append([]cell{
				custom(sCLI, "runs list", func(t *testing.T, w *world) outcome {
					return compacted(w.cliOutcome(t, sCLI, "runs", "list", "--limit", "5"))
				}),
				custom(sCLIGW, "runs list", func(t *testing.T, w *world) outcome {
					return compacted(w.cliOutcome(t, sCLIGW, "runs", "list", "--limit", "5"))
				}),
				httpC(operatorToken, http.MethodGet, "/api/runs?limit=5", nil),
				httpC(readToken, http.MethodGet, "/api/runs?limit=5", nil),
				na(sWS, "the WS protocol has no method that lists runs"),
			}, noMCP...)},
	}
}

// compacted rewrites an outcome's JSON payload without spaces, so rows
// can look for `"key":value` in it.
func compacted(o outcome) outcome {
	var v any
	if json.Unmarshal([]byte(o.Payload), &v) == nil {
		b, _ := json.Marshal(v)
		o.Payload = string(b)
	}
	return o
}
