package mcpserver

import (
	"encoding/json"
	"io"
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

// FuzzHTTPFraming fuzzes the framing in front of the SDK alone (no SDK
// session per input, so it runs many inputs a second): a body that is a
// JSON array after whitespace is refused whole with the batch refusal; a
// body that is not JSON, or JSON but not an object, is refused with 400;
// a body over the limit with 413; every refusal is one JSON-RPC error
// with id null; and what passes on is a JSON object, byte for byte the
// body that was sent, with the headers the transport needs.
func FuzzHTTPFraming(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, `[]`, " \n[", `[1,2`,
		`{}`, `null`, `42`, `"x"`, ``, `not json`, "\x00\xff", "\ufeff[{}]", ` {"a":1} `, strings.Repeat("x", 300),
	} {
		f.Add(s)
	}
	const limit = 256
	var passed []byte
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		passed, _ = io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") == "" || !acceptsJSONAndStream(r.Header.Values("Accept")) {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h := framed(nil, next, limit)
	f.Fuzz(func(t *testing.T, body string) {
		passed = nil
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		trimmed := strings.Trim(body, " \t\r\n")
		switch {
		case len(body) > limit:
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("%d-byte body answered %d, want 413", len(body), rec.Code)
			}
		case strings.HasPrefix(trimmed, "["):
			if rec.Code != http.StatusBadRequest || rec.Body.String() != batchRefusal {
				t.Fatalf("batch %q answered %d %q", body, rec.Code, rec.Body.String())
			}
		case trimmed == "":
			if rec.Code != http.StatusOK || string(passed) != body {
				t.Fatalf("empty body %q answered %d, passed %q", body, rec.Code, passed)
			}
			return
		case !json.Valid([]byte(trimmed)) || trimmed[0] != '{':
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("%q answered %d, want 400", body, rec.Code)
			}
		default:
			if rec.Code != http.StatusOK || string(passed) != body {
				t.Fatalf("object %q answered %d, passed %q", body, rec.Code, passed)
			}
			return
		}
		if passed != nil {
			t.Fatalf("refused %q reached the SDK", body)
		}
		var e struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.JSONRPC != "2.0" || string(e.ID) != "null" || e.Error == nil || e.Error.Message == "" {
			t.Fatalf("refusal of %q is not one JSON-RPC error with id null: %q", body, rec.Body.String())
		}
	})
}
