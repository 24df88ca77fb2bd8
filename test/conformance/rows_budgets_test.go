package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// Rows for budgets on sessions_spawn, usage rollups on session
// rows, the usage report, and the progress of running children.

// progressHome is the session whose one child is kept running (the
// script rule for progressTask answers after ten minutes), so its
// progress can be read on every surface.
const (
	progressHome = "agent:main:progress-home"
	progressTask = "conformance progress slow"
)

// noMCPUsage: the usage report is an operator method, not a tool.
const noMCPUsage = "the usage report is a gateway method and a CLI command, not a session tool"

// seedProgress spawns progressHome's slow child and waits until its
// progress record shows its first model call.
func (w *world) seedProgress(t *testing.T) {
	t.Helper()
	w.seedOK(t, http.MethodPost, "/api/spawn", map[string]any{"as": progressHome, "task": progressTask, "label": "slow"})
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, b := w.httpDo(t, operatorToken, http.MethodPost, "/api/tools/subagents", m{"action": "list"}, "X-Switchboard-As", progressHome)
		if st == http.StatusOK && progressFields(b)["phase"] == "model" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("seed: the slow child shows no progress: %d %s", st, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// progressFields are the first sub-agent's progress fields of a
// subagents list (bare, or in a tools.invoke/HTTP tool envelope).
func progressFields(b []byte) map[string]string {
	var v struct {
		Result    json.RawMessage `json:"result"`
		Subagents []struct {
			Progress *struct {
				Step  int    `json:"step"`
				Phase string `json:"phase"`
				RunID string `json:"runId"`
			} `json:"progress"`
			Usage *struct {
				Self json.RawMessage `json:"self"`
				Tree json.RawMessage `json:"tree"`
			} `json:"usage"`
		} `json:"subagents"`
	}
	if json.Unmarshal(b, &v) != nil {
		return map[string]string{}
	}
	if len(v.Result) > 0 && len(v.Subagents) == 0 {
		return progressFields(v.Result)
	}
	out := map[string]string{"children": fmt.Sprint(len(v.Subagents))}
	if len(v.Subagents) > 0 {
		s := v.Subagents[0]
		out["usage"] = fmt.Sprint(s.Usage != nil && s.Usage.Self != nil && s.Usage.Tree != nil)
		if s.Progress != nil {
			out["phase"], out["step"] = s.Progress.Phase, fmt.Sprint(s.Progress.Step)
			out["runId set"] = fmt.Sprint(s.Progress.RunID != "")
		}
	}
	return out
}

// usageRowFields read the main session's row of a sessions listing (any
// surface's shape): its usage keys and whether the tree covers its own.
func usageRowFields(b []byte) map[string]string {
	var v struct {
		Result   json.RawMessage `json:"result"`
		Sessions []struct {
			Key   string `json:"key"`
			Usage *struct {
				Self *struct{ InputTokens, OutputTokens, Runs int64 } `json:"self"`
				Tree *struct{ InputTokens, OutputTokens, Runs int64 } `json:"tree"`
			} `json:"usage"`
		} `json:"sessions"`
	}
	if json.Unmarshal(b, &v) != nil {
		return map[string]string{}
	}
	if len(v.Result) > 0 && len(v.Sessions) == 0 {
		return usageRowFields(v.Result)
	}
	out := map[string]string{"main row": "false"}
	for _, s := range v.Sessions {
		if s.Key != "main" && s.Key != "agent:main:main" {
			continue
		}
		out["main row"] = "true"
		u := s.Usage
		out["usage self and tree"] = fmt.Sprint(u != nil && u.Self != nil && u.Tree != nil)
		if u != nil && u.Self != nil && u.Tree != nil {
			self, tree := u.Self.InputTokens+u.Self.OutputTokens, u.Tree.InputTokens+u.Tree.OutputTokens
			out["own tokens > 0"] = fmt.Sprint(self > 0)
			out["tree > own (children spent)"] = fmt.Sprint(tree > self)
			out["tree runs > own runs"] = fmt.Sprint(u.Tree.Runs > u.Self.Runs)
		}
	}
	return out
}

// usageReportFields read a usage report.
func usageReportFields(b []byte) map[string]string {
	var v struct {
		By     string `json:"by"`
		Groups []struct {
			Key          string `json:"key"`
			InputTokens  int64  `json:"inputTokens"`
			OutputTokens int64  `json:"outputTokens"`
		} `json:"groups"`
		Total struct {
			InputTokens  int64 `json:"inputTokens"`
			OutputTokens int64 `json:"outputTokens"`
			Runs         int64 `json:"runs"`
		} `json:"total"`
	}
	if json.Unmarshal(b, &v) != nil {
		return map[string]string{}
	}
	var in, outT int64
	hasMain := false
	for _, g := range v.Groups {
		in += g.InputTokens
		outT += g.OutputTokens
		hasMain = hasMain || g.Key == "main"
	}
	return map[string]string{
		"by": v.By, "agent main has usage": fmt.Sprint(hasMain),
		"total is the groups' sum": fmt.Sprint(in == v.Total.InputTokens && outT == v.Total.OutputTokens && in > 0),
		"runs counted":             fmt.Sprint(v.Total.Runs > 0),
	}
}

func budgetRows(_ *world) []row {
	args := m{"task": "budgeted child", "budget": m{"tokens": 5000, "seconds": 600}}
	badArgs := m{"task": "budgeted child", "budget": m{"tokens": 0}}
	list := m{"action": "list"}
	noCLITool := []cell{na(sCLI, noCLIToolCall), na(sCLIGW, noCLIToolCall)}
	return []row{
		{finding: "16", name: "sessions_spawn with a budget answers the child's effective budget on every surface",
			want: outcome{OK: true, Status: "accepted", Fields: map[string]string{"budget.tokens": "5000", "budget.seconds": "600"}},
			fields: func(p []byte) map[string]string {
				return map[string]string{"budget.tokens": firstOf(p, "budget.tokens", "result.budget.tokens"),
					"budget.seconds": firstOf(p, "budget.seconds", "result.budget.seconds")}
			},
			cells: []cell{
				cliC(sCLI, "spawn", "budgeted child", "--budget-tokens", "5000", "--budget-seconds", "600"),
				cliC(sCLIGW, "spawn", "budgeted child", "--budget-tokens", "5000", "--budget-seconds", "600"),
				httpC(operatorToken, http.MethodPost, "/api/spawn", args),
				httpToolC(operatorToken, "", "sessions_spawn", args),
				wsC(operatorToken, "sessions.spawn", args),
				wsToolC(operatorToken, "", "sessions_spawn", args),
				stdioC("", "sessions_spawn", args),
				mcpHTTPC(operatorToken, "sessions_spawn", args),
			}},
		{finding: "16", name: "a budget out of its limits is refused naming the field and the limit",
			want: outcome{Code: "invalid", Msg: "budget.tokens must be at least 1"},
			cells: []cell{
				na(sCLI, cliNamesBudgetFlag), na(sCLIGW, cliNamesBudgetFlag),
				httpC(operatorToken, http.MethodPost, "/api/spawn", badArgs),
				httpToolC(operatorToken, "", "sessions_spawn", badArgs),
				wsC(operatorToken, "sessions.spawn", badArgs),
				wsToolC(operatorToken, "", "sessions_spawn", badArgs),
				stdioC("", "sessions_spawn", badArgs),
				mcpHTTPC(operatorToken, "sessions_spawn", badArgs),
			}},
		{finding: "16", name: "the CLI refuses a budget flag out of its limits naming the flag and the limit",
			want: outcome{Code: "invalid", Msg: "--budget-tokens must be at least 1 token (got 0)"},
			cells: []cell{
				cliC(sCLI, "spawn", "budgeted child", "--budget-tokens", "0"),
				cliC(sCLIGW, "spawn", "budgeted child", "--budget-tokens", "0"),
			}},
		{finding: "16", name: "session rows carry usage {self, tree}; main's tree includes its children's",
			want: outcome{OK: true, Fields: map[string]string{"main row": "true", "usage self and tree": "true",
				"own tokens > 0": "true", "tree > own (children spent)": "true", "tree runs > own runs": "true"}},
			fields: usageRowFields,
			cells: []cell{
				cliC(sCLI, "sessions", "list"),
				cliC(sCLIGW, "sessions", "list"),
				httpC(operatorToken, http.MethodGet, "/api/sessions", nil),
				wsC(operatorToken, "sessions.list", m{}),
				// The tool's page is 50 rows by default; the other rows'
				// sessions can push main past it, so the tool cells ask for
				// the tool's largest page.
				httpToolC(operatorToken, "", "sessions_list", m{"limit": 200}),
				wsToolC(operatorToken, "", "sessions_list", m{"limit": 200}),
				stdioC("", "sessions_list", m{"limit": 200}),
				mcpHTTPC(operatorToken, "sessions_list", m{"limit": 200}),
			}},
		{finding: "16", name: "usage report by agent on every surface that carries it",
			want: outcome{OK: true, Fields: map[string]string{"by": "agent", "agent main has usage": "true",
				"total is the groups' sum": "true", "runs counted": "true"}},
			fields: usageReportFields,
			cells: []cell{
				cliC(sCLI, "usage"),
				cliC(sCLIGW, "usage"),
				httpC(operatorToken, http.MethodGet, "/api/usage", nil),
				httpC(readToken, http.MethodGet, "/api/usage?by=agent", nil),
				wsC(operatorToken, "usage.report", m{}),
				wsC(readToken, "usage.report", m{"by": "agent"}),
				na(sMCPStdio, noMCPUsage), na(sMCPHTTP, noMCPUsage),
			}},
		{finding: "16", name: "bound token: the usage report is refused (operator only)",
			want: outcome{Code: "forbidden"},
			cells: []cell{
				httpC(boundToken, http.MethodGet, "/api/usage", nil),
				wsC(boundToken, "usage.report", m{}),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator),
				na(sMCPStdio, noMCPUsage), na(sMCPHTTP, noMCPUsage),
			}},
		{finding: "16", name: "subagents list shows a running child's progress and usage",
			want: outcome{OK: true, Status: "ok", Fields: map[string]string{"children": "1", "phase": "model", "step": "1",
				"runId set": "true", "usage": "true"}},
			fields: progressFields,
			cells: append([]cell{
				httpToolC(operatorToken, progressHome, "subagents", list),
				wsToolC(operatorToken, progressHome, "subagents", list),
				stdioC(progressHome, "subagents", list),
				na(sMCPHTTP, "MCP over HTTP acts as its token's session; the operator token's is main, which has no running child"),
			}, noCLITool...)},
	}
}

// cliNamesBudgetFlag: the CLI's error names its flag (--budget-tokens),
// not the wire field; its own row checks that.
const cliNamesBudgetFlag = "the CLI names its flag (--budget-tokens), not the wire field: see the CLI row below"
