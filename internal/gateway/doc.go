// Package gateway is switchboard's network server: the OpenClaw-compatible
// WebSocket gateway protocol (v3 and v4) on `/`, a JSON HTTP API under
// `/api/`, `/healthz`, Prometheus `/metrics`, and mount points for the MCP
// handler (`/mcp`) and the web UI (`/`). Every method is a thin adapter over
// the engine; the gateway owns connections, authentication, scopes and the
// mapping of engine events to protocol events.
//
// Lock order: Server.mu may be held while taking nothing else; conn.writeMu
// is only ever taken alone.
package gateway
