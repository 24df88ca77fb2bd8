// Package realclients tests the built switchboard binary with real clients:
// the official MCP Go SDK client (always), and — when SWITCHBOARD_REAL_CLIENTS=1,
// after .ci/run installed them into this folder's node_modules — the MCP
// Inspector CLI over stdio and streamable HTTP. (OpenClaw's own CLI is driven
// against the gateway in internal/gateway's realclient_test.go.)
package realclients
