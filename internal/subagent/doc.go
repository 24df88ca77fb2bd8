// Package subagent owns the pure parts of the sub-agent lifecycle that
// sessions_spawn starts (docs/design.md#spawn): the spawn spec stored with the
// child's run, the outbox payload that carries a finished child to its
// announce, the child session's status, the announce text (Status from the
// runtime outcome, the Result fenced as untrusted data, Notes, a stats
// line), and the rules that follow an announce (archive eligibility,
// attachments cleanup, delete on cleanup "delete").
//
// It does no I/O: the engine reads and writes the store, submits the
// announce run and removes files, deciding with these functions.
package subagent
