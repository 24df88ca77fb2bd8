// Package mcpserver exposes switchboard's session tools over the Model
// Context Protocol, so external agents (Claude Code, Codex, any MCP client)
// call sessions_list, sessions_history, sessions_send, sessions_spawn,
// agents_list, subagents and runs_wait as a principal: over HTTP the
// bearer token's (its scopes and bound session), over stdio the operator
// acting as `--session`.
//
// It is a thin adapter: every tool call is forwarded, with its raw
// arguments and the principal, to a Caller (the in-process engine or a
// running gateway), whose gate decides scope, binding and visibility; and
// the engine's outcome comes back as a tool result whose payload is both
// structuredContent and JSON text. Two transports are offered: stdio
// (RunStdio, for `switchboard mcp`) and stateless streamable HTTP
// (HTTPHandler, mounted by the gateway at /mcp).
//
// The SDK lives behind this package: no other package imports it.
package mcpserver
