// Package openclawimport imports an OpenClaw state directory into a
// switchboard store: every agents/<agentId>/sessions/sessions.json becomes
// session rows, and each entry's JSONL transcript (its active branch)
// becomes the session's messages. It backs `switchboard import openclaw`.
//
// Import is idempotent: a second run over the same directory writes
// nothing. Generate writes synthetic state directories for tests and the
// store benchmark.
package openclawimport
