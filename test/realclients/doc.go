// Package realclients tests the built switchboard binary with real clients:
// the official MCP Go SDK client (always), and — when SWITCHBOARD_REAL_CLIENTS=1,
// after .ci/run installed them into this folder's node_modules — the MCP
// Inspector CLI over stdio and streamable HTTP. For A2A (issue 17): the official
// Go SDK's client (a2a-go, protocol 0.3; always) and the official JavaScript
// SDK's client (@a2a-js/sdk, protocol 1.0; a2a_client.mjs, run with the Node
// that npm ci installs here, required in CI). (OpenClaw's own CLI is driven
// against the gateway in internal/gateway's realclient_test.go.)
package realclients
