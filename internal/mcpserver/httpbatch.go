package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// batchRefusal is the answer to a JSON-RPC batch on /mcp: an Invalid
// Request error for the batch as a whole (its id is null).
const batchRefusal = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported: send one JSON-RPC message per POST (MCP 2025-06-18 removed batches)"}}` + "\n"

// admitPOST reads a POST's body and answers it itself when the SDK need
// not see it, reporting whether it did:
//   - a body over the limit: 413 naming it, before a byte is read when
//     Content-Length says so;
//   - a JSON array: refused whole. MCP 2025-06-18 removed batches; over
//     HTTP one body could otherwise carry hundreds of calls whose answers
//     are all held in memory until the last one ends, so one small
//     request from a read-only token costs the gateway many times its
//     size. Every protocol version is refused alike: the HTTP transport is
//     stateless, so an older version named in a header buys nothing
//     (stdio keeps batches before 2025-06-18; its one client is the
//     process that started it);
//   - a body that is not JSON: a parse error; JSON that is not an object:
//     an invalid request.
//
// Anything else goes on to the SDK with the body read here. Malformed
// framing is answered without the session a stateless SDK exchange sets
// up for every request.
func admitPOST(w http.ResponseWriter, r *http.Request, limit int64) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	if r.ContentLength > limit {
		writeFraming(w, http.StatusRequestEntityTooLarge, tooLarge(limit))
		return true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeFraming(w, http.StatusRequestEntityTooLarge, tooLarge(mbe.Limit))
			return true
		}
		msg, _ := json.Marshal("parse error: reading the body: " + err.Error())
		writeFraming(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":`+string(msg)+"}}\n")
		return true
	}
	trimmed := trimJSONSpace(body)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		writeFraming(w, http.StatusBadRequest, batchRefusal)
		return true
	case len(trimmed) > 0 && !json.Valid(trimmed):
		writeFraming(w, http.StatusBadRequest, parseRefusal)
		return true
	case len(trimmed) > 0 && trimmed[0] != '{':
		writeFraming(w, http.StatusBadRequest, objectRefusal)
		return true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return false
}

// parseRefusal answers a POST whose body is not JSON.
const parseRefusal = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the body is not JSON"}}` + "\n"

// objectRefusal answers a POST whose body is JSON but not an object.
const objectRefusal = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message must be a JSON object"}}` + "\n"

// tooLarge answers a body over limit (the gateway's words for it).
func tooLarge(limit int64) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body too large (max %d bytes)"}}`, limit) + "\n"
}

// writeFraming writes a JSON-RPC error answered before the SDK.
func writeFraming(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
