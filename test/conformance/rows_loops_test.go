package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Rows for loops.list and loops.resume (the loop breaker): operator only.

const noMCPLoops = "no tool lists or resumes paused edges"

// loopsShape reads a loops.list answer: whether pauses is a list.
func loopsShape(p []byte) map[string]string {
	var res struct {
		Pauses []json.RawMessage `json:"pauses"`
	}
	ok := json.Unmarshal(p, &res) == nil && res.Pauses != nil
	return map[string]string{"pauses is a list": fmt.Sprint(ok)}
}

// loopsRows: the same listing on every surface; resuming an edge that is
// not paused is not_found; non-operators and read tokens are refused.
func loopsRows(_ *world) []row {
	notPaused := map[string]string{"from": "agent:main:loop-a", "to": "agent:main:loop-b"}
	return []row{
		{finding: "10", name: "loops list: the same shape on every surface",
			want:   outcome{OK: true, Fields: map[string]string{"pauses is a list": "true"}},
			fields: loopsShape,
			cells: []cell{
				cliC(sCLI, "loops", "list"),
				cliC(sCLIGW, "loops", "list"),
				httpC(operatorToken, http.MethodGet, "/api/loops", nil),
				httpC(readToken, http.MethodGet, "/api/loops", nil),
				wsC(operatorToken, "loops.list", map[string]any{}),
				wsC(readToken, "loops.list", map[string]any{}),
				na(sMCPStdio, noMCPLoops), na(sMCPHTTP, noMCPLoops),
			}},
		{finding: "10", name: "loops resume: an edge that is not paused is not found",
			want: outcome{Code: "not_found", Msg: "is not paused"},
			cells: []cell{
				cliC(sCLI, "loops", "resume", "agent:main:loop-a", "agent:main:loop-b"),
				cliC(sCLIGW, "loops", "resume", "agent:main:loop-a", "agent:main:loop-b"),
				httpC(operatorToken, http.MethodPost, "/api/loops/resume", notPaused),
				wsC(operatorToken, "loops.resume", notPaused),
				na(sMCPStdio, noMCPLoops), na(sMCPHTTP, noMCPLoops),
			}},
		{finding: "2", name: "bound token and sandboxed requester: loops need operator rights",
			want: outcome{Code: "forbidden", Msg: "needs operator rights"},
			cells: []cell{
				httpC(boundToken, http.MethodGet, "/api/loops", nil),
				httpC(boundAdminToken, http.MethodPost, "/api/loops/resume", notPaused),
				httpC(operatorToken, http.MethodGet, "/api/loops?as="+esc(sandboxKey), nil),
				wsC(boundToken, "loops.list", map[string]any{}),
				wsC(boundAdminToken, "loops.resume", notPaused),
				na(sCLI, "the loops command has no --as (it acts as the operator)"), na(sCLIGW, "the loops command has no --as"),
				na(sMCPStdio, noMCPLoops), na(sMCPHTTP, noMCPLoops),
			}},
		{finding: "1", name: "read token: loops resume refused for missing scope",
			want: outcome{Code: "forbidden", Msg: "missing scope"},
			cells: []cell{
				httpC(readToken, http.MethodPost, "/api/loops/resume", notPaused),
				wsC(readToken, "loops.resume", notPaused),
				na(sCLI, "the CLI acts as the operator"), na(sCLIGW, "the CLI acts as the operator"),
				na(sMCPStdio, noMCPLoops), na(sMCPHTTP, noMCPLoops),
			}},
	}
}
