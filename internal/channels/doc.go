// Package channels is the one channel layer between chat providers
// (Telegram, Discord) and the engine.
//
// A provider package (internal/channels/telegram, …) implements Adapter:
// it receives the provider's updates and hands each, as an Inbound, to a
// Sink, and it sends Outbound messages the outbox gives it. The Registry
// holds the adapters of a gateway: it starts and stops them together and
// is the outbox's deliverer for their channels. The Router is the Sink the
// gateway uses: it routes an Inbound to the session OpenClaw would route
// it to (Resolve), answers chat commands, and submits the message as a
// chat turn through the engine's one gate (api.Service.Chat) with its
// reply delivered back to the chat it came from.
//
// Delivery promises: an Inbound is acknowledged to its provider only after
// the Sink returned without error (its turn is durable); an outbound
// message is an outbox item, retried until the provider accepts it.
package channels
