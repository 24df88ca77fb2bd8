package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// signatureHeader carries the HMAC-SHA256 of a delivery's body, keyed
// with the app secret ("sha256=<hex>").
const signatureHeader = "X-Hub-Signature-256"

// validSignature reports whether header signs body with secret.
func validSignature(secret string, body []byte, header string) bool {
	hexSum, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok || secret == "" {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign returns the X-Hub-Signature-256 value of body under secret (what
// Meta sends; tests sign relayed payloads with it).
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// payload is a Cloud API webhook delivery.
type payload struct {
	Object string `json:"object"`
	Entry  []struct {
		ID      string `json:"id"`
		Changes []struct {
			Field string `json:"field"`
			Value value  `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

type value struct {
	Metadata struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	} `json:"metadata"`
	Contacts []struct {
		WaID    string `json:"wa_id"`
		Profile struct {
			Name string `json:"name"`
		} `json:"profile"`
	} `json:"contacts"`
	Messages []message `json:"messages"`
	Statuses []Status  `json:"statuses"`
}

type message struct {
	From      string `json:"from"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	// GroupID is set on a message in a Cloud API group.
	GroupID string `json:"group_id"`
	Text    *struct {
		Body string `json:"body"`
	} `json:"text"`
	Context *struct {
		From string `json:"from"`
		ID   string `json:"id"`
	} `json:"context"`
	Image, Video, Audio, Document, Sticker *media
	Button                                 *struct {
		Text string `json:"text"`
	} `json:"button"`
}

// media is the object of a media message: the id to fetch it by, and
// what the sender gave with it.
type media struct {
	ID       string `json:"id"`
	MimeType string `json:"mime_type"`
	SHA256   string `json:"sha256"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
}

// mediaRef is a media message's file to download onto its Inbound.
type mediaRef struct {
	kind string
	media
}

// incoming is a received message and the file it carries, if any.
type incoming struct {
	channels.Inbound
	media *mediaRef
}

// Status is a message status callback: a message of the bot's was sent,
// delivered, read or failed.
type Status struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Timestamp   string `json:"timestamp"`
	RecipientID string `json:"recipient_id"`
	Errors      []struct {
		Code    int    `json:"code"`
		Title   string `json:"title"`
		Message string `json:"message"`
	} `json:"errors"`
}

// decoded is what one delivery holds for one phone number.
type decoded struct {
	phoneNumberID string
	messages      []incoming
	statuses      []Status
}

// decodePayload reads a delivery into inbound messages and statuses, per
// phone number id. Messages with neither text nor a file are skipped.
func decodePayload(body []byte) ([]decoded, error) {
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, err
	}
	var out []decoded
	for _, e := range p.Entry {
		for _, ch := range e.Changes {
			if ch.Field != "" && ch.Field != "messages" {
				continue
			}
			v := ch.Value
			d := decoded{phoneNumberID: v.Metadata.PhoneNumberID, statuses: v.Statuses}
			names := map[string]string{}
			for _, c := range v.Contacts {
				names[c.WaID] = c.Profile.Name
			}
			for _, m := range v.Messages {
				if in, ok := toInbound(m, names[m.From]); ok {
					d.messages = append(d.messages, in)
				}
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// toInbound turns a Cloud API message into an Inbound (its account is
// filled by the caller). The sender is the E.164 form of its wa_id, as
// OpenClaw keys WhatsApp peers; the WhatsApp Web JID and the bare wa_id
// are its aliases, so imported direct sessions continue.
func toInbound(m message, name string) (incoming, bool) {
	text := ""
	var ref *mediaRef
	switch {
	case m.Text != nil:
		text = m.Text.Body
	case m.Button != nil:
		text = m.Button.Text
	default:
		for _, k := range []struct {
			kind string
			m    *media
		}{{"image", m.Image}, {"video", m.Video}, {"audio", m.Audio}, {"document", m.Document}, {"sticker", m.Sticker}} {
			if k.m == nil {
				continue
			}
			text = k.m.Caption
			if strings.TrimSpace(k.m.ID) != "" {
				ref = &mediaRef{kind: k.kind, media: *k.m}
			}
			break
		}
	}
	waID := strings.TrimPrefix(strings.TrimSpace(m.From), "+")
	if (strings.TrimSpace(text) == "" && ref == nil) || waID == "" || m.ID == "" {
		return incoming{}, false
	}
	in := channels.Inbound{Channel: Channel, EventID: m.ID, MessageID: m.ID, Text: text,
		SenderID: "+" + waID, SenderName: name, PeerAliases: []string{waID + "@s.whatsapp.net", waID}}
	if g := strings.TrimSpace(m.GroupID); g != "" {
		in.ChatType, in.ChatID, in.To = channels.ChatGroup, g, Channel+":group:"+g
	} else {
		in.ChatType, in.ChatID, in.ChatTitle, in.To = channels.ChatDirect, waID, name, Channel+":+"+waID
	}
	return incoming{Inbound: in, media: ref}, true
}
