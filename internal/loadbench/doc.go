// Package loadbench holds the load benchmarks a user runs from the CLI:
// `switchboard bench chat` (chat turns through the in-process engine on
// the script model) and `switchboard bench gateway` (WebSocket clients
// each driving its own session through a running gateway). Each returns a
// report that is written as JSON; the CLI prints it as a table. Numbers
// recorded with them are in docs/benchmarks.md.
package loadbench
