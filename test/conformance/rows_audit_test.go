package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Rows for the audit log: audit.list (OpenClaw's shape; its validators
// check the WS answers in the sweep), audit.chain.list and the CLI's
// audit commands. Admin scope, operator only.

const (
	noMCPAudit        = "no tool reads the audit log"
	cliAuditIsChain   = "switchboard audit list shows the chain (audit.chain.list); audit.list is OpenClaw's run and tool view"
	verifyIsTheCLIs   = "verify is the CLI's: it reads audit.chain.list page by page and checks the hashes"
	auditOperatorOnly = "the audit command has no --as (it acts as the operator)"
)

// auditListShape reads an audit.list answer: a list of events, each
// content-free (redaction metadata_only) and naming its run.
func auditListShape(p []byte) map[string]string {
	var res struct {
		Events []struct {
			Redaction string `json:"redaction"`
			RunID     string `json:"runId"`
		} `json:"events"`
	}
	ok := json.Unmarshal(p, &res) == nil && res.Events != nil
	meta := ok
	for _, e := range res.Events {
		meta = meta && e.Redaction == "metadata_only" && e.RunID != ""
	}
	return map[string]string{"events is a list": fmt.Sprint(ok), "every event is metadata only": fmt.Sprint(meta)}
}

// auditChainShape reads a page of the chain (an object with records, or
// the CLI's list of records): whether each record links to the one
// before it on the page.
func auditChainShape(p []byte) map[string]string {
	type rec struct {
		Seq  int64  `json:"seq"`
		Prev string `json:"prev"`
		Hash string `json:"hash"`
	}
	var page struct {
		Records []rec `json:"records"`
	}
	recs := []rec(nil)
	if json.Unmarshal(p, &page) == nil && page.Records != nil {
		recs = page.Records
	} else if json.Unmarshal(p, &recs) != nil {
		recs = nil
	}
	linked := len(recs) > 0
	for i := 1; i < len(recs); i++ {
		linked = linked && recs[i].Prev == recs[i-1].Hash && recs[i].Seq == recs[i-1].Seq+1
	}
	return map[string]string{"records link up": fmt.Sprint(linked)}
}

func verifiedShape(p []byte) map[string]string {
	var res struct {
		OK bool `json:"ok"`
	}
	_ = json.Unmarshal(p, &res)
	return map[string]string{"ok": fmt.Sprint(res.OK)}
}

func auditRows(_ *world) []row {
	return []row{
		{finding: "10", name: "audit list: OpenClaw's events on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"events is a list": "true", "every event is metadata only": "true"}},
			fields: auditListShape,
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/audit?limit=50", nil),
				wsC(operatorToken, "audit.list", map[string]any{"limit": 50}),
				wsC(operatorToken, "audit.list", map[string]any{"kind": "agent_run", "status": "started"}),
				na(sCLI, cliAuditIsChain), na(sCLIGW, cliAuditIsChain),
				na(sMCPStdio, noMCPAudit), na(sMCPHTTP, noMCPAudit),
			}},
		{finding: "10", name: "audit chain: linked records on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"records link up": "true"}},
			fields: auditChainShape,
			cells: []cell{
				cliC(sCLI, "audit", "list"),
				cliC(sCLIGW, "audit", "list"),
				httpC(operatorToken, http.MethodGet, "/api/audit/chain", nil),
				wsC(operatorToken, "audit.chain.list", map[string]any{"limit": 100}),
				na(sMCPStdio, noMCPAudit), na(sMCPHTTP, noMCPAudit),
			}},
		{finding: "10", name: "audit verify: the chain holds",
			want:   outcome{OK: true, Fields: map[string]string{"ok": "true"}},
			fields: verifiedShape,
			cells: []cell{
				cliC(sCLI, "audit", "verify"),
				cliC(sCLIGW, "audit", "verify"),
				na(sWS, verifyIsTheCLIs), na(sHTTP, verifyIsTheCLIs),
				na(sMCPStdio, noMCPAudit), na(sMCPHTTP, noMCPAudit),
			}},
		{finding: "10", name: "audit chain: a cursor this gateway did not give is refused",
			want: outcome{Code: "invalid", Msg: "is not a cursor this gateway gave"},
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/audit/chain?cursor=abc", nil),
				wsC(operatorToken, "audit.chain.list", map[string]any{"cursor": "abc"}),
				na(sCLI, "the CLI pages with the cursors it is given"), na(sCLIGW, "the CLI pages with the cursors it is given"),
				na(sMCPStdio, noMCPAudit), na(sMCPHTTP, noMCPAudit),
			}},
		{finding: "1", name: "read token: the audit log needs the admin scope",
			want: outcome{Code: "forbidden", Msg: "missing scope"},
			cells: []cell{
				httpC(readToken, http.MethodGet, "/api/audit", nil),
				httpC(readToken, http.MethodGet, "/api/audit/chain", nil),
				wsC(readToken, "audit.list", map[string]any{}),
				wsC(readToken, "audit.chain.list", map[string]any{}),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator),
				na(sMCPStdio, noMCPAudit), na(sMCPHTTP, noMCPAudit),
			}},
		{finding: "2", name: "bound token and sandboxed requester: the audit log needs operator rights",
			want: outcome{Code: "forbidden", Msg: "needs operator rights"},
			cells: []cell{
				httpC(boundAdminToken, http.MethodGet, "/api/audit", nil),
				httpC(operatorToken, http.MethodGet, "/api/audit/chain?as="+esc(sandboxKey), nil),
				wsC(boundAdminToken, "audit.list", map[string]any{}),
				wsC(boundAdminToken, "audit.chain.list", map[string]any{}),
				na(sCLI, auditOperatorOnly), na(sCLIGW, auditOperatorOnly),
				na(sMCPStdio, noMCPAudit), na(sMCPHTTP, noMCPAudit),
			}},
	}
}
