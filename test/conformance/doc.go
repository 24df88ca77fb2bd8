// Package conformance is the cross-surface conformance test of switchboard:
// a table of operations × principals × surfaces in
// which every cell must give the same result shape and status, or the same
// error code, on every surface that carries the operation.
//
// The surfaces are the CLI in-process (a state dir with no gateway), the CLI
// through a gateway (a state dir whose gateway runs), the HTTP API (/api/*),
// the WebSocket protocol, MCP over stdio (`switchboard mcp --session KEY`)
// and MCP over streamable HTTP (/mcp with a bearer token); the A2A
// JSON-RPC endpoint (/a2a/agents/<id>) carries chat, runs.get and
// runs.cancel as SendMessage, GetTask and CancelTask. The principals
// are the operator (the main token, the CLI without --as), a read-only
// token, a write token, session-bound tokens and a sandboxed requester.
// Every operation of
// api.Service has rows on every surface that carries it, for the
// principals whose rights differ; a cell that does not exist for a
// surface is skipped with the reason, never silently.
//
// Each surface's answer is normalised by one function per wire format
// (HTTP status and error body, WS error code, MCP isError and JSON-RPC
// errors, CLI exit status) into one small comparable struct, and compared
// with the row's expectation with cmp.Diff.
//
// TestMain builds the real binary with `go build -race` from the module
// root. Because the binary is built inside the test, Go's test cache does
// not see changes to the code under test: CI must run this package with
// -count=1, for example
//
//	go test -race -count=1 ./test/conformance/
package conformance
