package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// Rows for Subagents, WaitRun and the queue a writing command takes.

// subagentsShape is the top-level keys of a subagents payload and whether
// count is the list's length.
func subagentsShape(p []byte) map[string]string {
	var v map[string]json.RawMessage
	if json.Unmarshal(p, &v) != nil {
		return map[string]string{}
	}
	var keys []string
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var list struct {
		Count     int               `json:"count"`
		Subagents []json.RawMessage `json:"subagents"`
	}
	_ = json.Unmarshal(p, &list)
	return map[string]string{
		"keys":                       strings.Join(keys, ","),
		"count is the list's length": fmt.Sprint(list.Subagents != nil && list.Count == len(list.Subagents)),
	}
}

// subagentsRows: Subagents list and cancel (the subagents tool on
// /api/tools, tools.invoke and MCP).
func subagentsRows(_ *world) []row {
	list := m{"action": "list"}
	noCLI := []cell{na(sCLI, noCLIToolCall), na(sCLIGW, noCLIToolCall)}
	cancelEnded := func(s surface, via, token string) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			args := m{"action": "cancel", "target": w.ids.endedChild}
			switch s {
			case sHTTP:
				return w.httpTool(t, token, "", "subagents", args)
			case sWS:
				return w.wsTool(t, token, "", "subagents", args)
			case sMCPStdio:
				return w.mcpStdioOutcome(t, "", "subagents", args)
			}
			return w.mcpHTTPOutcome(t, token, "subagents", args)
		})
	}
	return []row{
		{finding: "10", name: "subagents list answers {status, count, subagents} on every surface",
			want: outcome{OK: true, Status: "ok", Fields: map[string]string{
				"keys": "count,status,subagents", "count is the list's length": "true"}},
			fields: subagentsShape, sameFields: []string{"keys"},
			cells: append([]cell{
				httpToolC(operatorToken, "", "subagents", list),
				httpToolC(boundToken, "", "subagents", list),
				wsToolC(operatorToken, "", "subagents", list),
				wsToolC(readToken, "", "subagents", list),
				stdioC("", "subagents", list),
				mcpHTTPC(operatorToken, "subagents", list),
				mcpHTTPC(boundToken, "subagents", list),
			}, noCLI...)},
		{finding: "6", name: "subagents cancel of an ended child answers already ended: ok",
			want: outcome{OK: true, Status: "ok", Fields: map[string]string{"note": "already ended: ok", "cancelled": "[]"}},
			fields: func(p []byte) map[string]string {
				return map[string]string{"note": jsonPath(p, "note"), "cancelled": jsonPath(p, "cancelled")}
			},
			cells: append([]cell{
				cancelEnded(sHTTP, "POST /api/tools/subagents", operatorToken),
				cancelEnded(sWS, "tools.invoke subagents", operatorToken),
				cancelEnded(sMCPStdio, "subagents", ""),
				cancelEnded(sMCPHTTP, "subagents", operatorToken),
			}, noCLI...)},
		{finding: "2", name: "bound token: subagents cancel of another session's child is not found",
			want: outcome{Code: "not_found", Msg: "no sub-agent"},
			cells: append([]cell{
				cancelEnded(sHTTP, "POST /api/tools/subagents bound", boundToken),
				cancelEnded(sWS, "tools.invoke subagents bound", boundToken),
				cancelEnded(sMCPHTTP, "subagents bound", boundToken),
				na(sMCPStdio, stdioIsOwner),
			}, noCLI...)},
	}
}

// waitCells waits on the run id of the given principal on every surface
// that waits: GET /api/runs/{id}?wait=5s, WS agent.wait and the runs_wait
// tool; as names a requester where the surface takes one.
func waitCells(token, as, label string, id func(w *world) string) []cell {
	tool := func(s surface, via string, call func(t *testing.T, w *world, args m) outcome) cell {
		return custom(s, via+" "+label, func(t *testing.T, w *world) outcome {
			return call(t, w, m{"runId": id(w), "timeoutSeconds": 5})
		})
	}
	cells := []cell{
		custom(sHTTP, "GET /api/runs/{id}?wait=5s "+label, func(t *testing.T, w *world) outcome {
			path := "/api/runs/" + id(w) + "?wait=5s"
			if as != "" {
				path += "&as=" + url.QueryEscape(as)
			}
			return w.httpOutcome(t, token, http.MethodGet, path, nil)
		}),
		tool(sHTTP, "POST /api/tools/runs_wait", func(t *testing.T, w *world, args m) outcome {
			return w.httpTool(t, token, as, "runs_wait", args)
		}),
		tool(sWS, "tools.invoke runs_wait", func(t *testing.T, w *world, args m) outcome {
			return w.wsTool(t, token, as, "runs_wait", args)
		}),
	}
	if as == "" {
		cells = append(cells,
			custom(sWS, "agent.wait "+label, func(t *testing.T, w *world) outcome {
				return w.wsOutcome(t, token, "agent.wait", m{"runId": id(w), "timeoutMs": 5000})
			}),
			tool(sMCPHTTP, "runs_wait", func(t *testing.T, w *world, args m) outcome {
				return w.mcpHTTPOutcome(t, token, "runs_wait", args)
			}))
	}
	if token == operatorToken {
		cells = append(cells, tool(sMCPStdio, "runs_wait", func(t *testing.T, w *world, args m) outcome {
			return w.mcpStdioOutcome(t, as, "runs_wait", args)
		}))
	}
	return cells
}

// waitRows: WaitRun (CLI runs wait, GET /api/runs/{id}?wait=, WS
// agent.wait, the runs_wait tool).
func waitRows(_ *world) []row {
	final := func(p []byte) map[string]string {
		return map[string]string{"final status": firstOf(p, "runStatus", "status")}
	}
	mainRun := func(w *world) string { return w.ids.mainRun }
	cliWait := func(s surface) cell {
		return custom(s, "runs wait ID", func(t *testing.T, w *world) outcome {
			id := w.ids.mainRun
			if s == sCLI {
				id = w.ids.inprocMainRun
			}
			return w.cliOutcome(t, s, "runs", "wait", id, "--timeout", "5")
		})
	}
	foreign := func(w *world) string { return w.ids.foreignRun }
	return []row{
		{finding: "6", name: "waiting on an ended run answers its final status on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"final status": "ok"}},
			fields: final, sameFields: []string{"final status"},
			cells: append([]cell{cliWait(sCLI), cliWait(sCLIGW)}, waitCells(operatorToken, "", "operator", mainRun)...)},
		{finding: "2", name: "bound token: waiting on its own session's run answers its final status",
			want:   outcome{OK: true, Fields: map[string]string{"final status": "ok"}},
			fields: final,
			cells: append(waitCells(boundToken, "", "bound", func(w *world) string { return w.ids.boundRun }),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner))},
		{finding: "2", name: "bound token and sandboxed requester: waiting on another session's run is not found",
			want: outcome{Code: "not_found", Msg: "not found"},
			cells: append(append(waitCells(boundToken, "", "bound", foreign), waitCells(operatorToken, sandboxKey, "as sandbox", foreign)...),
				na(sCLI, "runs wait has no --as"), na(sCLIGW, "runs wait has no --as"))},
	}
}

// writeQueueRows: a command that writes runs
// the work it created, not other sessions' queued work.
func writeQueueRows(_ *world) []row {
	const a, b = "agent:main:f8w-a", "agent:main:f8w-b"
	return []row{{finding: "8", name: "chat into A runs A's queued work and leaves B's queued",
		want: outcome{OK: true, Fields: map[string]string{"B's run": "queued", "A's last run": "ok"}},
		cells: []cell{
			custom(sCLI, "chat A --detach; chat B --detach; chat A; runs list", func(t *testing.T, w *world) outcome {
				w.cliMu.Lock()
				defer w.cliMu.Unlock()
				ids := map[string]string{}
				for _, step := range []struct{ key, msg, name string }{{a, "x", "A1"}, {b, "y", "B"}} {
					r := w.cliUnlocked(t, w.inproc, "chat", step.key, step.msg, "--detach", "--json")
					if !r.ok {
						return fromCLI(r.exit, r.stdout, r.msg)
					}
					if ids[step.name] = firstOf([]byte(r.stdout), "runId", "run.runId"); ids[step.name] == "" {
						t.Fatalf("chat %s --detach printed no runId: %s", step.key, r.stdout)
					}
				}
				r := w.cliUnlocked(t, w.inproc, "chat", a, "z", "--json")
				if !r.ok {
					return fromCLI(r.exit, r.stdout, r.msg)
				}
				l := w.cliUnlocked(t, w.inproc, "runs", "list", "--json")
				if !l.ok {
					return fromCLI(l.exit, l.stdout, l.msg)
				}
				var runs struct {
					Runs []struct {
						RunID  string `json:"runId"`
						Status string `json:"status"`
					} `json:"runs"`
				}
				if err := json.Unmarshal([]byte(l.stdout), &runs); err != nil {
					t.Fatalf("runs list --json: %v: %s", err, l.stdout)
				}
				status := map[string]string{}
				for _, run := range runs.Runs {
					status[run.RunID] = run.Status
				}
				return outcome{OK: true, Payload: r.stdout + "\n" + l.stdout, Fields: map[string]string{
					"B's run":      status[ids["B"]],
					"A's last run": jsonPath([]byte(r.stdout), "status"),
				}}
			}),
			na(sCLIGW, "a gateway serves: queued work runs there by design"),
			na(sHTTP, "the gateway serves"), na(sWS, "the gateway serves"),
			na(sMCPStdio, "runs against the gateway, which serves"), na(sMCPHTTP, "the gateway serves"),
		}}}
}
