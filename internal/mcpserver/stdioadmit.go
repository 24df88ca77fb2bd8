package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes the stdio gate answers with itself.
const (
	// codeParseError: the line is not JSON.
	codeParseError = jsonrpc.CodeParseError
	// codeInvalidRequest: JSON, but not a JSON-RPC message the server can
	// take (no "jsonrpc":"2.0", a bad id, an empty batch, a batch the
	// negotiated protocol forbids, a line too long).
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	// codeNotInitialized: a request other than initialize or ping before
	// initialize (the code LSP and MCP servers use for it).
	codeNotInitialized = -32002
)

// batchesEndVersion is the first protocol version without JSON-RPC
// batches; the SDK drops the connection on a batch in it or later.
const batchesEndVersion = "2025-06-18"

// admission decides, line by line, which input reaches the SDK. The SDK
// ends the whole connection on a line it cannot decode, and answers a
// request before initialize with error code 0; docs/design.md#parameters-and-errors wants a
// JSON-RPC error with a standard code and a server that keeps serving.
// It is owned by the reading side of a gate.
type admission struct {
	initialized bool   // an initialize request has gone through
	requested   string // the protocol version that request asked for
}

// refusal is the JSON-RPC error the gate answers in place of the SDK.
type refusal struct {
	id      json.RawMessage // nil when the id is unknown
	code    int64
	message string
}

// check returns nil when line may go to the SDK, else what to answer.
// answered is the protocol version the server answered initialize with,
// "" until the gate saw that answer (the version the client asked for
// stands in until then: the reader runs ahead of the SDK). pending
// reports whether a request id (keyOf) still awaits its answer.
func (a *admission) check(line []byte, answered string, pending func(string) bool) *refusal {
	line = trimJSONSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		return &refusal{code: codeParseError, message: "parse error: the line is not JSON"}
	case line[0] == '[':
		version := answered
		if version == "" {
			version = a.requested
		}
		return a.checkBatch(line, version, pending)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return &refusal{id: rawID(line), code: codeInvalidRequest, message: "invalid request: " + whyInvalid(line)}
	}
	return a.checkMessage(msg, rawID(line))
}

// checkMessage applies the initialization rule to one decoded message.
func (a *admission) checkMessage(msg jsonrpc.Message, id json.RawMessage) *refusal {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil // a response to a request of the server
	}
	switch {
	case req.Method == "":
		// The SDK takes it for a response and drops it: the call would
		// never be answered (found by FuzzStdioLine).
		return &refusal{id: id, code: codeInvalidRequest, message: "invalid request: method must not be empty"}
	case req.Method == "initialize":
		a.initialized = true
		a.requested = protocolVersion(req.Params)
	case !a.initialized && req.IsCall() && req.Method != "ping" && !sessionless(req.Params):
		return &refusal{id: id, code: codeNotInitialized,
			message: fmt.Sprintf("server not initialized: send initialize before %s", req.Method)}
	}
	return nil
}

// checkBatch refuses a batch the SDK could not take; it decides for the
// batch as a whole (its answer has no id). The SDK remembers the id of
// every request of a batch until it is answered and ends the connection
// on a batch that repeats one; a notification's missing id is remembered
// too and never answered, so a second batch holding a notification would
// end it (found by FuzzStdioLine). A batch therefore holds only calls
// with ids of their own.
func (a *admission) checkBatch(line []byte, version string, pending func(string) bool) *refusal {
	if version >= batchesEndVersion {
		return &refusal{code: codeInvalidRequest,
			message: fmt.Sprintf("invalid request: JSON-RPC batches are not supported in protocol version %s", version)}
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
		return &refusal{code: codeInvalidRequest, message: "invalid request: empty batch"}
	}
	msgs := make([]jsonrpc.Message, 0, len(batch))
	for _, raw := range batch {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return &refusal{code: codeInvalidRequest, message: "invalid request in batch: " + whyInvalid(raw)}
		}
		msgs = append(msgs, msg)
	}
	seen := make(map[string]bool, len(msgs))
	for _, msg := range msgs {
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue // a response to a request of the server
		}
		if !req.IsCall() {
			return &refusal{code: codeInvalidRequest, message: "invalid request: a batch may hold only requests with an id; send " + req.Method + " on a line of its own"}
		}
		if k, ok := keyOf(req.ID); ok {
			if seen[k] || pending(k) {
				return &refusal{code: codeInvalidRequest, message: fmt.Sprintf("invalid request in batch: id %v is already in use by a request not yet answered", req.ID.Raw())}
			}
			seen[k] = true
		}
	}
	for _, msg := range msgs {
		if r := a.checkMessage(msg, nil); r != nil {
			return r
		}
	}
	return nil
}

// jsonSpace is the whitespace JSON allows between tokens. bytes.TrimSpace
// trims more (a form feed, U+0085, U+00A0): a line of those looked empty
// to the gate but ended the SDK's connection (found by FuzzStdioLine).
const jsonSpace = " \t\r\n"

func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, jsonSpace) }

// whyInvalid says why JSON the SDK cannot decode is not a JSON-RPC
// message, in the client's terms (the SDK's errors name its Go types).
func whyInvalid(raw []byte) string {
	var m struct {
		JSONRPC *string `json:"jsonrpc"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return "a message must be a JSON object"
	}
	if m.JSONRPC == nil || *m.JSONRPC != "2.0" {
		return `"jsonrpc" must be "2.0"`
	}
	return "not a JSON-RPC 2.0 message (an id is a string or a number; a response has an id)"
}

// sessionless reports whether a request follows the sessionless protocol
// (its _meta names a protocol version), which needs no initialize.
func sessionless(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[mcp.MetaKeyProtocolVersion]
	return ok
}

// rawID returns the id of a JSON object line when it is a valid JSON-RPC
// id (a string or a number), else nil.
func rawID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	if _, ok := idKey(m.ID); !ok {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// errorResponse is a JSON-RPC error response.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// response is the JSON-RPC error response of r, newline-terminated.
func (r refusal) response() []byte {
	id := r.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: wireError{r.code, r.message}})
	if err != nil {
		// Only an id that is not JSON could fail, and ids are checked.
		b = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return append(b, '\n')
}
