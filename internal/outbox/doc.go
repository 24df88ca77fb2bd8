// Package outbox owns the delivery of outbox items: work that must happen
// at least once after a transaction committed it — an agent-to-agent
// announce posted to a channel, a sub-agent's result delivered to its
// requester session, a gateway `send`, a deferred archive.
//
// A Worker takes the items that are due, hands each to the Deliverer of
// its kind and records the outcome: delivered, retried with exponential
// backoff (1 s, 2 s … 64 s), or failed for good after MaxAttempts (8)
// attempts or a permanent error. Channel messages go through Channels,
// which picks one deliverer per channel kind: Webhook (HTTP POST of JSON
// with an Idempotency-Key header) for a channel with a webhook URL, Local
// for channels with no external service (webchat, internal, unknown),
// whose message is in the transcript already. Wire builds the gateway's
// worker: the engine supplies what only it can do (a sub-agent's announce
// into its requester session, the send-policy check); archives are here.
package outbox
