// Package api is the contract every surface of switchboard speaks: one
// typed request and result per operation, the Principal that makes each
// call, the table of operations with the scope each needs and whether it
// acts as a requester, the limits of every parameter, and the Service
// interface.
//
// The engine implements Service in-process; internal/client implements it
// against a running gateway. The CLI holds one Service; the WebSocket,
// HTTP and MCP handlers only translate their wire formats to these types
// and back. None of them reads the store or the config on its own, and
// none decides who may do what: the engine's gate reads Rules and the
// principal, once, for every call.
package api
