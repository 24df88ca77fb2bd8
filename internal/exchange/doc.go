// Package exchange owns the agent-to-agent exchange that follows a
// sessions_send (docs/design.md#the-reply-back-loop-and-the-announce-step): what happens after each run of the exchange
// ends — reply-back turns alternating between requester and target, up to
// session.agentToAgent.maxPingPongTurns, then the announce step on the
// target, whose reply is posted to the target's channel — the silence
// tokens (REPLY_SKIP, ANNOUNCE_SKIP, NO_REPLY) that end it early, the loop
// safety of chains of sends (no session twice, at most maxHops hops), and
// the system contexts and provenance injected into each step.
//
// It is pure: Next is a function of the exchange's state and the run that
// just ended, with no I/O, no clock and no goroutines. The engine calls it
// from its run-finished hook and writes the follow-ups it returns (runs,
// and the announce's outbox item) in the same transaction.
package exchange
