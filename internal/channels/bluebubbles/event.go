package bluebubbles

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// event is a BlueBubbles webhook delivery: {type, data}.
type event struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// message is BlueBubbles' message object (the fields read here).
type message struct {
	GUID        string `json:"guid"`
	Text        string `json:"text"`
	IsFromMe    bool   `json:"isFromMe"`
	DateCreated int64  `json:"dateCreated"`
	Handle      *struct {
		Address string `json:"address"`
	} `json:"handle"`
	Attachments []attachment `json:"attachments"`
	Chats       []struct {
		GUID           string `json:"guid"`
		ChatIdentifier string `json:"chatIdentifier"`
		DisplayName    string `json:"displayName"`
		Style          int    `json:"style"`
	} `json:"chats"`
}

// attachment is BlueBubbles' attachment object (the fields read here).
type attachment struct {
	GUID         string `json:"guid"`
	MimeType     string `json:"mimeType"`
	TransferName string `json:"transferName"`
	TotalBytes   int64  `json:"totalBytes"`
	// HideAttachment marks a part iMessage does not show (a link
	// preview's image).
	HideAttachment bool `json:"hideAttachment"`
}

// groupStyle is the chat style of a group chat.
const groupStyle = 43

// errIgnored is a delivery that carries no user message (another event
// type, the bot's own message, one with neither text nor attachments).
var errIgnored = errors.New("not a user message")

// decodeEvent reads a webhook delivery into an Inbound for account and
// the attachments to download onto it.
func decodeEvent(accountID string, body []byte) (channels.Inbound, []attachment, error) {
	var e event
	if err := json.Unmarshal(body, &e); err != nil {
		return channels.Inbound{}, nil, err
	}
	if e.Type != "new-message" {
		return channels.Inbound{}, nil, errIgnored
	}
	var m message
	if err := json.Unmarshal(e.Data, &m); err != nil {
		return channels.Inbound{}, nil, err
	}
	var atts []attachment
	for _, a := range m.Attachments {
		if !a.HideAttachment && strings.TrimSpace(a.GUID) != "" {
			atts = append(atts, a)
		}
	}
	if m.IsFromMe || (strings.TrimSpace(m.Text) == "" && len(atts) == 0) {
		return channels.Inbound{}, nil, errIgnored
	}
	if m.GUID == "" || m.Handle == nil || strings.TrimSpace(m.Handle.Address) == "" {
		return channels.Inbound{}, nil, errors.New("new-message without a guid or a sender")
	}
	in, err := toInbound(accountID, m)
	return in, atts, err
}

// toInbound is a received message as an Inbound for account.
func toInbound(accountID string, m message) (channels.Inbound, error) {
	sender := normalizeHandle(m.Handle.Address)
	in := channels.Inbound{Channel: Channel, AccountID: accountID, EventID: m.GUID, MessageID: m.GUID,
		Text: m.Text, SenderID: sender}
	chatGUID, title, group := "", "", false
	if len(m.Chats) > 0 {
		c := m.Chats[0]
		chatGUID, title = strings.TrimSpace(c.GUID), c.DisplayName
		group = c.Style == groupStyle || strings.Contains(chatGUID, ";+;")
		if group && chatGUID == "" {
			chatGUID = c.ChatIdentifier
		}
	}
	if group {
		if chatGUID == "" {
			return channels.Inbound{}, errors.New("group message without a chat guid")
		}
		in.ChatType, in.ChatID, in.ChatTitle = channels.ChatGroup, chatGUID, title
		in.To = Channel + ":chat_guid:" + chatGUID
		return in, nil
	}
	in.ChatType, in.ChatID = channels.ChatDirect, sender
	if chatGUID != "" {
		in.To = Channel + ":chat_guid:" + chatGUID
	} else {
		in.To = Channel + ":" + sender
	}
	return in, nil
}

// normalizeHandle is a sender as OpenClaw keys it: an e-mail address
// lowercased, a phone number without punctuation.
func normalizeHandle(h string) string {
	h = strings.TrimSpace(h)
	if strings.Contains(h, "@") {
		return strings.ToLower(h)
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '(' || r == ')' || r == '.' {
			return -1
		}
		return r
	}, h)
}
