package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

// TestHTTPRefusesBatches: a JSON-RPC batch on /mcp is refused as a whole
// before any call in it runs (MCP 2025-06-18 removed batches), so a
// read-only token cannot multiply one small body into hundreds of answers.
func TestHTTPRefusesBatches(t *testing.T) {
	e := newEngine(t, "tree")
	chat(t, e, "main", "hello")
	ts := serveHTTP(t, New(e, Options{}), map[string]api.Principal{"tok": {Name: "ro", Scopes: api.ScopeRead}})
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`
	var parts []string
	for i := range 400 {
		parts = append(parts, strings.Replace(call, "%d", string(rune('0'+i%10)), 1))
	}
	both := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
		"Mcp-Protocol-Version": "2025-03-26"}
	for _, body := range []string{"[" + strings.Join(parts, ",") + "]", " \n\t[" + parts[0] + "]", "[]"} {
		resp, got := post(t, http.MethodPost, ts.URL+"/mcp", "tok", both, body)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("batch of %d bytes: status %d, want 400; body %.200s", len(body), resp.StatusCode, got)
		}
		if len(got) > 512 {
			t.Errorf("batch answer is %d bytes, want one short error", len(got))
		}
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(got), &msg); err != nil {
			t.Fatalf("batch answer %q is not a JSON-RPC message: %v", got, err)
		}
		if msg.JSONRPC != "2.0" || string(msg.ID) != "null" || msg.Error.Code != -32600 ||
			!strings.Contains(msg.Error.Message, "batch") {
			t.Errorf("batch answer %s, want a -32600 error with id null naming batches", got)
		}
	}
	// One request per POST still works.
	resp, got := post(t, http.MethodPost, ts.URL+"/mcp", "tok", both, parts[0])
	if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"count":1`) {
		t.Errorf("single call: status %d body %.200s", resp.StatusCode, got)
	}
}
