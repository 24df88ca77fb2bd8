package discord

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/disgoorg/disgo/discord"
)

// Gateway opcodes this package speaks (Discord Gateway v10).
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opResume         = 6
	opReconnect      = 7
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatAck   = 11
)

// maxFrameBytes bounds one gateway frame read; Discord's own payloads are
// far smaller, and a larger one is a broken or hostile peer.
const maxFrameBytes = 4 << 20

// frame is one gateway payload: {op, d, s, t}.
type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int            `json:"s"`
	T  string          `json:"t"`
}

// decodeFrame decodes one gateway payload.
func decodeFrame(b []byte) (frame, error) {
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return frame{}, fmt.Errorf("discord gateway: frame does not decode: %w", err)
	}
	return f, nil
}

// hello is the d of op 10.
type hello struct {
	HeartbeatInterval int `json:"heartbeat_interval"`
}

// readyEvent is the part of READY this package keeps.
type readyEvent struct {
	SessionID        string `json:"session_id"`
	ResumeGatewayURL string `json:"resume_gateway_url"`
	User             struct {
		ID       string `json:"id"`
		Username string `json:"username"`
	} `json:"user"`
}

// channelInfo is what routing needs of a channel: its kind, its guild,
// its parent (a thread's channel) and its name.
type channelInfo struct {
	ID       string `json:"id"`
	Type     int    `json:"type"`
	GuildID  string `json:"guild_id"`
	ParentID string `json:"parent_id"`
	Name     string `json:"name"`
}

// Discord channel types this package tells apart.
const (
	channelDM            = 1
	channelGroupDM       = 3
	channelAnnounceThr   = 10
	channelPublicThread  = 11
	channelPrivateThread = 12
)

func (c channelInfo) isThread() bool {
	return c.Type == channelAnnounceThr || c.Type == channelPublicThread || c.Type == channelPrivateThread
}

// guildCreate is the part of GUILD_CREATE this package keeps.
type guildCreate struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Channels []channelInfo `json:"channels"`
	Threads  []channelInfo `json:"threads"`
}

// Message is an inbound Discord message, reduced to what routing, gating
// and the turn need.
type Message struct {
	ID        string
	ChannelID string
	// GuildID is empty for a direct message.
	GuildID    string
	AuthorID   string
	AuthorName string
	AuthorBot  bool
	// RoleIDs are the author's guild roles (from the message's member).
	RoleIDs []string
	Content string
	// MentionIDs are the users the message mentions.
	MentionIDs []string
	// ReplyToAuthorID is the author of the message this one replies to.
	ReplyToAuthorID string
	// WebhookID is set for messages posted by a webhook.
	WebhookID string
	// Attachments are the files the message carried.
	Attachments []Attachment
}

// ErrNotAMessage reports a MESSAGE_CREATE whose d lacks a field every
// message has.
var ErrNotAMessage = errors.New("discord: not a message")

// decodeMessage decodes the d of MESSAGE_CREATE with disgo's Message type.
func decodeMessage(d []byte) (Message, error) {
	var m discord.Message
	if err := json.Unmarshal(d, &m); err != nil {
		return Message{}, fmt.Errorf("discord: MESSAGE_CREATE does not decode: %w", err)
	}
	if m.ID == 0 || m.ChannelID == 0 || m.Author.ID == 0 {
		return Message{}, fmt.Errorf("%w: id, channel_id and author.id are required", ErrNotAMessage)
	}
	out := Message{
		ID:         m.ID.String(),
		ChannelID:  m.ChannelID.String(),
		AuthorID:   m.Author.ID.String(),
		AuthorName: displayName(m.Author),
		AuthorBot:  m.Author.Bot || m.Author.System,
		Content:    m.Content,
	}
	if m.GuildID != nil && *m.GuildID != 0 {
		out.GuildID = m.GuildID.String()
	}
	if m.Member != nil {
		for _, r := range m.Member.RoleIDs {
			out.RoleIDs = append(out.RoleIDs, r.String())
		}
	}
	for _, u := range m.Mentions {
		out.MentionIDs = append(out.MentionIDs, u.ID.String())
	}
	if m.ReferencedMessage != nil {
		out.ReplyToAuthorID = m.ReferencedMessage.Author.ID.String()
	}
	if m.WebhookID != nil {
		out.WebhookID = m.WebhookID.String()
	}
	for _, at := range m.Attachments {
		a := Attachment{Filename: at.Filename, Size: int64(at.Size), URL: at.URL}
		if at.ContentType != nil {
			a.ContentType = *at.ContentType
		}
		out.Attachments = append(out.Attachments, a)
	}
	return out, nil
}

// displayName is the name a user shows: the global name, else the
// username.
func displayName(u discord.User) string {
	if u.GlobalName != nil && *u.GlobalName != "" {
		return *u.GlobalName
	}
	return u.Username
}
