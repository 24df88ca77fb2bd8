package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHTTPBody posts one arbitrary body to /mcp (stateless streamable
// HTTP): the handler never panics; a body that is a JSON array after
// whitespace is refused whole with 400 and one -32600 error (no call in
// it runs); every other answer is a known status, and a 200 is one
// JSON-RPC 2.0 message, never a batch of them.
func FuzzHTTPBody(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, `[]`, " \n[", `[1,2`, `{}`, `null`, `42`, `"x"`, ``,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":5,"result":{}}`,
		`not json`, "\x00\xff", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, "\ufeff[{}]",
	} {
		f.Add(s)
	}
	h := New(echoCaller{}, Options{MaxRequestBytes: 1 << 16}).HTTPHandler(nil)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Body.String()
		if strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "[") {
			if rec.Code != http.StatusBadRequest || got != batchRefusal {
				t.Fatalf("batch %q answered %d %q, want 400 and the batch refusal", body, rec.Code, got)
			}
			return
		}
		switch rec.Code {
		case http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusRequestEntityTooLarge,
			http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("body %q answered status %d: %q", body, rec.Code, got)
		}
		if rec.Code == http.StatusOK && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			var m struct {
				JSONRPC string `json:"jsonrpc"`
			}
			if err := json.Unmarshal([]byte(got), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("body %q answered 200 with %q, want one JSON-RPC 2.0 message", body, got)
			}
		}
	})
}
