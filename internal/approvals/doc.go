// Package approvals holds the agent-to-agent calls an operator must
// decide before they run: which calls wait (the rules of
// approvals.rules), what an allow-always allows (an edge), the Approver
// that stores a held call with its outbox item, records the decision
// (approval.resolve, `/approve` and `/deny` in a chat, the expiry),
// wakes the tool calls waiting for it and carries an allowed call out
// once, the loop breaker's ask to resume a paused edge, and an approval
// in OpenClaw's snapshot shape (docs/operations.md#approvals). The
// engine's gate checks the caller first and hands the Approver the
// calls it carries out as their requester.
package approvals
