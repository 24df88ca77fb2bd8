// Package gateway is switchboard's network server: the OpenClaw-compatible
// WebSocket gateway protocol (v3 and v4) on `/`, a JSON HTTP API under
// `/api/`, `/healthz`, Prometheus `/metrics`, and mount points for the MCP
// handler (`/mcp`) and the web UI (`/`).
//
// Every method and endpoint is a thin translator over api.Service: the
// gateway authenticates a token into a grant, builds the caller's
// api.Principal from it (grant.principal), translates the wire format to a
// typed request and back, and fans engine events out to connections. It
// decides nothing about rights itself: scopes come from api.RuleFor, and
// binding, visibility, limits and idempotency are the engine's gate's. A
// connection of a non-operator principal receives only events of sessions
// the engine says it may see.
//
// Lock order: Server.mu may be held while taking nothing else; conn.writeMu
// is only ever taken alone.
package gateway
