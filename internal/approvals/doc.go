// Package approvals decides which agent-to-agent calls wait for an
// operator (the rules of approvals.rules), names what an allow-always
// allows (an edge), shows an approval in OpenClaw's snapshot shape, and
// wakes the tool calls that wait for a decision. It holds no state of
// its own beyond those waiters: the approvals themselves are rows of the
// store, written by the engine (docs/operations.md#approvals).
package approvals
