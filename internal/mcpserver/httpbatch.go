package mcpserver

import (
	"bufio"
	"io"
	"net/http"
)

// batchRefusal is the answer to a JSON-RPC batch on /mcp: an Invalid
// Request error for the batch as a whole (its id is null).
const batchRefusal = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported: send one JSON-RPC message per POST (MCP 2025-06-18 removed batches)"}}` + "\n"

// refuseBatch answers a POST whose body is a JSON array and reports that
// it did. MCP 2025-06-18 removed batches; over HTTP one body could
// otherwise carry hundreds of calls whose answers are all held in memory
// until the last one ends, so one small request from a read-only token
// costs the gateway many times its size. Every protocol version is
// refused alike: the HTTP transport is stateless, so an older version
// named in a header buys nothing (stdio keeps batches before 2025-06-18;
// its one client is the process that started it). Only the bytes before
// the first non-space one are read here; the body is passed on whole.
func refuseBatch(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return false
	}
	br := bufio.NewReader(r.Body)
	first := firstNonSpace(br)
	r.Body = struct {
		io.Reader
		io.Closer
	}{br, r.Body}
	if first != '[' {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = io.WriteString(w, batchRefusal)
	return true
}

// firstNonSpace peeks past JSON whitespace and returns the first other
// byte, or 0 at the end of the body (or on a read error, which the
// transport reports when it reads the body itself).
func firstNonSpace(br *bufio.Reader) byte {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.Discard(1)
		default:
			return b[0]
		}
	}
}
