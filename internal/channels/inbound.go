package channels

import "github.com/switchboard-go/switchboard/internal/attachments"

// Chat types of an Inbound (OpenClaw's peer kinds).
const (
	// ChatDirect is a one-to-one chat with the bot.
	ChatDirect = "direct"
	// ChatGroup is a group chat (Telegram groups and supergroups).
	ChatGroup = "group"
	// ChatChannel is a channel-like room (a Discord guild channel).
	ChatChannel = "channel"
)

// DefaultAccountID is the account id of a channel configured without
// `accounts` (OpenClaw's "default").
const DefaultAccountID = "default"

// Inbound is one user message a provider delivered to the bot, in the
// provider-neutral form the Router routes. Adapters fill what their
// provider knows; empty strings mean "not known".
type Inbound struct {
	// Channel is the channel name ("telegram", "discord"): the session
	// key segment, the config key under `channels` and the outbox item's
	// channel.
	Channel string
	// AccountID is the bot account that received it (DefaultAccountID
	// when the channel has no `accounts`).
	AccountID string
	// EventID is the provider's unique id of this delivery (a Telegram
	// update_id, a Discord message id). The Router makes it the turn's
	// idempotency key, so a redelivered event starts no second turn.
	EventID string
	// ChatType is ChatDirect, ChatGroup or ChatChannel.
	ChatType string
	// ChatID is the provider's chat id (Telegram chat id; Discord channel
	// id, the parent channel for a thread).
	ChatID string
	// ThreadID is the forum topic (Telegram message_thread_id) or thread
	// (Discord thread channel id) inside ChatID, "" for none.
	ThreadID string
	// GuildID is the Discord guild (server), "" elsewhere.
	GuildID string
	// Roles are the sender's Discord role ids (bindings may match them).
	Roles []string
	// ChatTitle names the chat for humans: the session's displayName (a
	// Telegram group's title; `guild#channel` on Discord).
	ChatTitle string
	// SenderID is the sender's provider user id; SenderName their display
	// name and SenderUsername their @handle without the @.
	SenderID       string
	SenderName     string
	SenderUsername string
	// MessageID is the provider's id of the message (replies quote it).
	MessageID string
	// Text is the message text (a caption for media).
	Text string
	// Files are the photos and documents the message carried, downloaded
	// (within MediaLimits); a file that could not be taken is named in
	// Text instead (MediaRefusal).
	Files []attachments.File
	// To is where a reply to this message goes, in the channel's own
	// recipient form (Telegram: "telegram:<chatId>" or
	// "telegram:<chatId>:topic:<threadId>"). The Router records it as the
	// session's lastTo and deliveryContext.to and queues the reply to it.
	To string
	// Mentioned reports an explicit mention of the bot or a reply to one of
	// its messages (mention gating).
	Mentioned bool
	// SystemPrompt is extra system text the adapter's config gives this
	// chat (Telegram `groups.<id>.systemPrompt`), "" for none.
	SystemPrompt string
	// AgentID, when set, is the agent the adapter's config binds this chat
	// to (a topic's agentId); it overrides `bindings`.
	AgentID string
	// PeerAliases are other ids the direct-chat sender had in keys made
	// elsewhere (a WhatsApp Web JID for a Cloud API sender): a direct
	// chat continues the first row found under one of them.
	PeerAliases []string
}

// Peer returns the routing peer of m: its chat for groups and channels,
// its sender for direct chats.
func (m Inbound) Peer() (kind, id string) {
	if m.ChatType == ChatDirect || m.ChatType == "" {
		id := m.SenderID
		if id == "" {
			id = m.ChatID
		}
		return ChatDirect, id
	}
	return m.ChatType, m.ChatID
}
