package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// Rows for approvals: a send the conformance config's approvals rule holds
// (agent beta sending to agent beta), and approval.get, .resolve,
// .history and .list on every surface that carries them.

const noMCPApprovals = "no tool reads or decides approvals"

// gatedKey is a target of agent beta: a send to it as beta's main is held.
func gatedKey(name string) string { return "agent:beta:gated-" + name }

// approvalItems reads an approval.list or approval.history answer.
func approvalItems(p []byte) map[string]string {
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	ok := json.Unmarshal(p, &res) == nil && res.Items != nil
	return map[string]string{"items is a list": fmt.Sprint(ok)}
}

// heldShape reads a held send's answer.
func heldShape(p []byte) map[string]string {
	var res struct {
		ApprovalID string `json:"approvalId"`
	}
	_ = json.Unmarshal(p, &res)
	return map[string]string{"has an approval id": fmt.Sprint(len(res.ApprovalID) > 4)}
}

// resolvedShape reads an approval.resolve answer.
func resolvedShape(p []byte) map[string]string {
	var res struct {
		Applied  bool `json:"applied"`
		Approval struct {
			Status   string `json:"status"`
			Decision string `json:"decision"`
		} `json:"approval"`
	}
	_ = json.Unmarshal(p, &res)
	return map[string]string{"applied": fmt.Sprint(res.Applied), "status": res.Approval.Status, "decision": res.Approval.Decision}
}

// holdOne makes a held send on the served gateway (HTTP tool call as
// beta's main) and returns its approval id.
func (w *world) holdOne(t *testing.T, name string) string {
	t.Helper()
	st, b := w.httpDo(t, operatorToken, http.MethodPost, "/api/tools/sessions_send",
		m{"sessionKey": gatedKey(name), "message": "gated " + name, "timeoutSeconds": 0}, "X-Switchboard-As", betaMain)
	var tool struct {
		Result struct {
			Status     string `json:"status"`
			ApprovalID string `json:"approvalId"`
		} `json:"result"`
	}
	err := json.Unmarshal(b, &tool)
	res := tool.Result
	if err != nil || st != http.StatusOK || res.Status != "pending_approval" {
		t.Fatalf("held send to %s = %d %s", gatedKey(name), st, b)
	}
	return res.ApprovalID
}

// resolveCell holds a send, then decides it through surface s.
func resolveCell(s surface, via string, decide func(t *testing.T, w *world, id string) outcome) cell {
	return cell{s: s, via: via, run: func(t *testing.T, w *world) outcome {
		return decide(t, w, w.holdOne(t, string(s)))
	}}
}

func approvalsRows(_ *world) []row {
	missing := map[string]any{"id": "apr_missing"}
	resolveMissing := map[string]any{"id": "apr_missing", "kind": "plugin", "decision": "deny"}
	return []row{
		{finding: "10", name: "approvals: a send an approvals rule holds answers pending_approval with its approval id",
			want:   outcome{OK: true, Status: "pending_approval", Fields: map[string]string{"has an approval id": "true"}},
			fields: heldShape,
			cells: []cell{
				httpToolC(operatorToken, betaMain, "sessions_send", m{"sessionKey": gatedKey("http"), "message": "gated", "timeoutSeconds": 0}),
				wsToolC(operatorToken, betaMain, "sessions_send", m{"sessionKey": gatedKey("ws"), "message": "gated", "timeoutSeconds": 0}),
				stdioC(betaMain, "sessions_send", m{"sessionKey": gatedKey("stdio"), "message": "gated", "timeoutSeconds": 0}),
				cliC(sCLI, "send", gatedKey("cli"), "gated", "--as", betaMain, "--timeout", "0"),
				cliC(sCLIGW, "send", gatedKey("cligw"), "gated", "--as", betaMain, "--timeout", "0"),
				na(sMCPHTTP, "MCP over HTTP has no way to name a requester"),
			}},
		{finding: "10", name: "approvals list and history: the same shape on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"items is a list": "true"}},
			fields: approvalItems,
			cells: []cell{
				cliC(sCLI, "approvals", "list"),
				cliC(sCLIGW, "approvals", "history"),
				httpC(operatorToken, http.MethodGet, "/api/approvals", nil),
				httpC(operatorToken, http.MethodGet, "/api/approvals/history?limit=5", nil),
				wsC(operatorToken, "approval.list", map[string]any{}),
				wsC(operatorToken, "approval.history", map[string]any{"limit": 5, "kind": "plugin"}),
				na(sMCPStdio, noMCPApprovals), na(sMCPHTTP, noMCPApprovals),
			}},
		{finding: "10", name: "approvals: an operator allows a held send once on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"applied": "true", "status": "allowed", "decision": "allow-once"}},
			fields: resolvedShape,
			cells: []cell{
				resolveCell(sCLIGW, "approvals approve", func(t *testing.T, w *world, id string) outcome {
					return w.cliOutcome(t, sCLIGW, "approvals", "approve", id)
				}),
				resolveCell(sHTTP, "POST /api/approvals/{id}/resolve", func(t *testing.T, w *world, id string) outcome {
					return w.httpOutcome(t, operatorToken, http.MethodPost, "/api/approvals/"+id+"/resolve", m{"decision": "allow-once"})
				}),
				resolveCell(sWS, "approval.resolve", func(t *testing.T, w *world, id string) outcome {
					if o := w.wsOutcome(t, operatorToken, "approval.get", m{"id": id}); !o.OK {
						return o
					}
					return w.wsOutcome(t, operatorToken, "approval.resolve", m{"id": id, "kind": "plugin", "decision": "allow-once"})
				}),
				na(sCLI, "the held sends of this row are on the served gateway's store"),
				na(sMCPStdio, noMCPApprovals), na(sMCPHTTP, noMCPApprovals),
			}},
		{finding: "10", name: "approvals: an unknown approval is not found",
			want: outcome{Code: "not_found", Msg: `"apr_missing" not found`},
			cells: []cell{
				cliC(sCLI, "approvals", "deny", "apr_missing"),
				cliC(sCLIGW, "approvals", "deny", "apr_missing"),
				httpC(operatorToken, http.MethodGet, "/api/approvals/apr_missing", nil),
				httpC(operatorToken, http.MethodPost, "/api/approvals/apr_missing/resolve", m{"decision": "deny"}),
				wsC(operatorToken, "approval.get", missing),
				wsC(operatorToken, "approval.resolve", resolveMissing),
				na(sMCPStdio, noMCPApprovals), na(sMCPHTTP, noMCPApprovals),
			}},
		{finding: "1", name: "read token and session-bound token: approvals refused for missing scope operator.approvals",
			want: outcome{Code: "forbidden", Msg: "missing scope: operator.approvals"},
			cells: []cell{
				httpC(readToken, http.MethodGet, "/api/approvals", nil),
				httpC(writeToken, http.MethodPost, "/api/approvals/apr_missing/resolve", m{"decision": "deny"}),
				httpC(boundToken, http.MethodPost, "/api/approvals/apr_missing/resolve", m{"decision": "deny"}),
				wsC(readToken, "approval.get", missing),
				wsC(readToken, "approval.history", map[string]any{}),
				wsC(boundToken, "approval.resolve", resolveMissing),
				wsC(writeToken, "approval.list", map[string]any{}),
				na(sCLI, "the CLI acts as the operator"), na(sCLIGW, "the CLI acts as the operator"),
				na(sMCPStdio, noMCPApprovals), na(sMCPHTTP, noMCPApprovals),
			}},
		{finding: "2", name: "bound admin token and sandboxed requester: approvals need operator rights",
			want: outcome{Code: "forbidden", Msg: "needs operator rights"},
			cells: []cell{
				httpC(boundAdminToken, http.MethodPost, "/api/approvals/apr_missing/resolve", m{"decision": "deny"}),
				httpC(operatorToken, http.MethodGet, "/api/approvals?as="+esc(sandboxKey), nil),
				wsC(boundAdminToken, "approval.resolve", resolveMissing),
				na(sCLI, "the approvals command has no --as (it acts as the operator)"), na(sCLIGW, "the approvals command has no --as"),
				na(sMCPStdio, noMCPApprovals), na(sMCPHTTP, noMCPApprovals),
			}},
	}
}
