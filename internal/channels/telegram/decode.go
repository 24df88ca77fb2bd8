package telegram

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// maxUpdateBytes bounds one update's JSON (a webhook body).
const maxUpdateBytes = 1 << 20

// tooLarge answers a webhook body over maxUpdateBytes (413).
var tooLarge = fmt.Sprintf("request body too large (max %d bytes)", maxUpdateBytes)

// decodeUpdates decodes a getUpdates answer's result.
func decodeUpdates(body []byte) ([]models.Update, error) {
	var r struct {
		OK          bool            `json:"ok"`
		Result      []models.Update `json:"result"`
		Description string          `json:"description"`
		ErrorCode   int             `json:"error_code"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("getUpdates: answer does not decode: %w", err)
	}
	if !r.OK {
		return nil, fmt.Errorf("getUpdates: %d %s", r.ErrorCode, r.Description)
	}
	return r.Result, nil
}

// decodeUpdate decodes one update (a webhook body).
func decodeUpdate(body []byte) (models.Update, error) {
	var u models.Update
	if len(body) > maxUpdateBytes {
		return u, errors.New("update too large")
	}
	if err := json.Unmarshal(body, &u); err != nil {
		return u, fmt.Errorf("update does not decode: %w", err)
	}
	return u, nil
}

// botInfo is what the adapter knows of its own bot (getMe).
type botInfo struct {
	ID       int64
	Username string
}

// toInbound turns an update into the channel layer's message; ok is false
// for updates that are no user message (edits, bots, service messages,
// channel posts, no text and no photo or document).
func toInbound(accountID string, me botInfo, u models.Update) (channels.Inbound, bool) {
	m := u.Message
	if m == nil || m.From == nil || m.From.IsBot {
		return channels.Inbound{}, false
	}
	text := m.Text
	if text == "" {
		text = m.Caption
	}
	if strings.TrimSpace(text) == "" && !hasMedia(m) {
		return channels.Inbound{}, false
	}
	chatID := strconv.FormatInt(m.Chat.ID, 10)
	in := channels.Inbound{
		Channel: "telegram", AccountID: accountID, EventID: strconv.FormatInt(u.ID, 10),
		ChatID: chatID, ChatTitle: m.Chat.Title,
		SenderID: strconv.FormatInt(m.From.ID, 10), SenderUsername: m.From.Username,
		SenderName: strings.TrimSpace(m.From.FirstName + " " + m.From.LastName),
		MessageID:  strconv.Itoa(m.ID), Text: text,
	}
	switch m.Chat.Type {
	case models.ChatTypePrivate:
		in.ChatType = channels.ChatDirect
		in.To = "telegram:" + chatID
	case models.ChatTypeGroup, models.ChatTypeSupergroup:
		in.ChatType = channels.ChatGroup
		in.To = "telegram:" + chatID
		// A forum topic is its own session; the General topic (no thread
		// id, or a reply thread outside a forum) is the group's.
		if m.MessageThreadID != 0 && (m.IsTopicMessage || m.Chat.IsForum) {
			in.ThreadID = strconv.Itoa(m.MessageThreadID)
			in.To += ":topic:" + in.ThreadID
		}
	default:
		return channels.Inbound{}, false
	}
	in.Mentioned = mentions(me, m, text)
	return in, true
}

// mentions reports an @mention of the bot (in the text or a mention
// entity, a /command@bot included) or a reply to one of its messages.
func mentions(me botInfo, m *models.Message, text string) bool {
	if r := m.ReplyToMessage; r != nil && r.From != nil && me.ID != 0 && r.From.ID == me.ID {
		return true
	}
	if me.Username == "" {
		return false
	}
	handle := "@" + strings.ToLower(me.Username)
	for _, e := range append(append([]models.MessageEntity{}, m.Entities...), m.CaptionEntities...) {
		switch e.Type {
		case models.MessageEntityTypeMention, models.MessageEntityTypeBotCommand:
			if strings.HasSuffix(strings.ToLower(entityText(text, e)), handle) {
				return true
			}
		case models.MessageEntityTypeTextMention:
			if e.User != nil && e.User.ID == me.ID {
				return true
			}
		}
	}
	lower := strings.ToLower(text)
	for i := strings.Index(lower, handle); i >= 0; {
		end := i + len(handle)
		if end == len(lower) || !isHandleChar(lower[end]) {
			return true
		}
		j := strings.Index(lower[end:], handle)
		if j < 0 {
			break
		}
		i = end + j
	}
	return false
}

func isHandleChar(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9')
}

// entityText is the text an entity covers (offsets are UTF-16 units).
func entityText(text string, e models.MessageEntity) string {
	u := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length < 0 || e.Offset > len(u) || e.Offset+e.Length > len(u) {
		return ""
	}
	return string(utf16.Decode(u[e.Offset : e.Offset+e.Length]))
}

// stripMention removes a leading "@bot " and a command's "@bot" suffix,
// so "/new@bot" is "/new" and "@bot hi" is "hi".
func stripMention(me botInfo, text string) string {
	if me.Username == "" {
		return text
	}
	t := strings.TrimSpace(text)
	handle := "@" + me.Username
	if len(t) >= len(handle) && strings.EqualFold(t[:len(handle)], handle) {
		t = strings.TrimSpace(t[len(handle):])
	}
	if strings.HasPrefix(t, "/") {
		word, rest, _ := strings.Cut(t, " ")
		if i := strings.Index(word, "@"); i > 0 && strings.EqualFold(word[i:], handle) {
			word = word[:i]
		}
		t = strings.TrimSpace(word + " " + rest)
	}
	return t
}
