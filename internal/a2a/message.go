package a2a

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// MaxContextIDChars bounds an A2A contextId: it becomes part of a session
// key, whose length is bounded by sessionkey.MaxKeyLen.
const MaxContextIDChars = 128

// MaxParts bounds the parts of one message.
const MaxParts = 64

// checkContextID validates a client's contextId: it becomes the last
// segment of a session key, so it is limited to letters, digits and
// . _ - (a UUID fits) and to MaxContextIDChars.
func checkContextID(field, id string) error {
	if id == "" {
		return nil
	}
	if len(id) > MaxContextIDChars {
		return invalidParams("%s is too long (%d characters; max %d)", field, len(id), MaxContextIDChars)
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return invalidParams("%s %q may contain only letters, digits and . _ - (max %d characters)", field, clip(id), MaxContextIDChars)
		}
	}
	return nil
}

// contextSpace is the UUID namespace of generated contextIds.
var contextSpace = uuid.MustParse("6f1c2d1e-5a0b-4c8e-9d7a-2b3c4d5e6f70")

// derivedContextID is the contextId of a message sent without one: a name
// based UUID of the caller and the messageId, so a retry of the same
// message lands in the same context (and is recognised as a retry by the
// idempotency key), while two callers never share one.
func derivedContextID(caller, session, messageID string) string {
	return uuid.NewSHA1(contextSpace, []byte(caller+"\x00"+session+"\x00"+messageID)).String()
}

// newID is a fresh random id (messages that are not stored).
func newID() string { return uuid.NewString() }

// incoming is a checked client message: its text, the context it belongs
// to and the idempotency key its messageId gives.
type incoming struct {
	Text      string
	ContextID string
	TaskID    string
	MessageID string
	// Chain is the loop-governance chain the message carried
	// (metadata wire.ChainKey), handed to the run it starts.
	Chain []string
}

// checkMessage validates the message of SendMessage: role user, a
// messageId, at least one part, text or JSON data parts only (files are
// refused: switchboard's sessions take text), the text within
// api.MessageChars. Errors name the field.
func checkMessage(m *wire.Message) (incoming, error) {
	if m == nil {
		return incoming{}, invalidParams("message is required")
	}
	if strings.TrimSpace(m.MessageID) == "" {
		return incoming{}, invalidParams("message.messageId is required")
	}
	if err := api.IdempotencyKeyChars.CheckChars(m.MessageID); err != nil {
		if int64(len([]rune(m.MessageID))) > api.IdempotencyKeyChars.Max {
			return incoming{}, invalidParams("message.messageId is too long (max %d characters)", api.IdempotencyKeyChars.Max)
		}
		return incoming{}, invalidParams("message.messageId must not contain null bytes")
	}
	switch m.Role {
	case wire.RoleUser:
	case "":
		return incoming{}, invalidParams("message.role is required (ROLE_USER)")
	default:
		return incoming{}, invalidParams("message.role must be ROLE_USER (got %q)", clip(string(m.Role)))
	}
	if err := checkContextID("message.contextId", m.ContextID); err != nil {
		return incoming{}, err
	}
	if len(m.Parts) == 0 {
		return incoming{}, invalidParams("message.parts must hold at least one part")
	}
	if len(m.Parts) > MaxParts {
		return incoming{}, invalidParams("message.parts has %d parts (max %d)", len(m.Parts), MaxParts)
	}
	var texts []string
	for i, p := range m.Parts {
		field := fmt.Sprintf("message.parts[%d]", i)
		n := 0
		for _, set := range []bool{p.Text != nil, len(p.Raw) > 0, p.URL != "", len(p.Data) > 0} {
			if set {
				n++
			}
		}
		if n != 1 {
			return incoming{}, invalidParams("%s must set exactly one of text, raw, url or data (found %d)", field, n)
		}
		switch {
		case p.Text != nil:
			texts = append(texts, *p.Text)
		case len(p.Data) > 0:
			if !json.Valid(p.Data) {
				return incoming{}, invalidParams("%s.data is not JSON", field)
			}
			texts = append(texts, string(p.Data))
		default:
			return incoming{}, contentTypeError("%s: file parts (raw, url) are not supported; send text or data parts", field)
		}
	}
	text := strings.Join(texts, "\n")
	if strings.TrimSpace(text) == "" {
		return incoming{}, invalidParams("message.parts hold no text")
	}
	if err := api.MessageChars.CheckChars(text); err != nil {
		if n := len([]rune(text)); int64(n) > api.MessageChars.Max {
			return incoming{}, invalidParams("message text is too long (%d characters; max %d, api limit %s)",
				n, api.MessageChars.Max, api.MessageChars.Name)
		}
		return incoming{}, invalidParams("message text: %s", err.Error())
	}
	return incoming{Text: text, ContextID: m.ContextID, TaskID: m.TaskID, MessageID: m.MessageID, Chain: wire.ChainOf(m.Metadata)}, nil
}

// checkSessionKey checks that the derived session key is one the engine
// will take (the agent id and contextId are both checked already; this
// guards the overall length).
func checkSessionKey(key string) error {
	if len(key) > sessionkey.MaxKeyLen {
		return invalidParams("message.contextId makes a session key longer than %d bytes", sessionkey.MaxKeyLen)
	}
	return nil
}
