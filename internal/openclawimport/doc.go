// Package openclawimport moves sessions between OpenClaw state directories
// and a switchboard store, both ways. Import reads either of OpenClaw's
// layouts — agents/<agentId>/agent/openclaw-agent.sqlite (2026.7 and
// later) or agents/<agentId>/sessions/sessions.json with JSONL
// transcripts — into session rows and each session's active branch of
// messages; it backs `switchboard import openclaw`. Export writes a store
// back as either layout; it backs `switchboard export openclaw`.
//
// Import is idempotent: a second run over the same directory writes
// nothing. Generate writes synthetic state directories for tests and the
// store benchmark.
package openclawimport
