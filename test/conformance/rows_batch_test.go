package conformance

import (
	"net/http"
	"testing"
)

// Rows on JSON-RPC batches.

// batchRows: a JSON-RPC batch is refused whole on both JSON-RPC
// endpoints over HTTP (/mcp and A2A), for any token, before any call in
// it runs.
func batchRows(_ *world) []row {
	call := m{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": m{"name": "sessions_list", "arguments": m{}}}
	batch := []any{call, call, call}
	a2aCall := m{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": m{"id": "x"}}
	post := func(s surface, path string, body any, hdr ...string) cell {
		return custom(s, "POST "+path+" [batch]", func(t *testing.T, w *world) outcome {
			st, b := w.httpDo(t, readToken, http.MethodPost, path, body, hdr...)
			return fromA2A(st, b)
		})
	}
	noBatch := "one request per frame; an array is not a request frame (the connection is closed as invalid)"
	return []row{
		{finding: "28.2", name: "a JSON-RPC batch is refused whole",
			want: outcome{Code: "invalid", Msg: "not supported"},
			cells: []cell{
				post(sMCPHTTP, "/mcp", batch, "Accept", "application/json, text/event-stream"),
				post(sA2A, "/a2a/agents/main", []any{a2aCall, a2aCall}, "A2A-Version", "1.0"),
				na(sHTTP, "the JSON API takes one JSON object per request, no JSON-RPC"),
				na(sWS, noBatch),
				na(sMCPStdio, stdioIsOwner+"; batches before protocol 2025-06-18 are the one client's own"),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator),
			}},
	}
}
