// Package delivery decides where a session's words go outside it: the
// target of a chat run's delivered reply (channel and recipient), whether
// a recipient is the session's own, the outbox items of a delivered reply
// and of a gateway send, and the send's transcript mirror. The engine
// runs the transactions; package outbox delivers the items.
package delivery

import (
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/exchange"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Target is the outbound target of a chat run's reply (stored in its
// spec as "deliver").
type Target struct {
	Channel string `json:"channel"`
	To      string `json:"to,omitempty"`
}

// Last asks for the channel the session last heard on (OpenClaw's
// "last"), as a chat's channel or replyChannel.
const Last = "last"

// ForChat resolves where a chat run's reply is delivered when req asks for
// it (OpenClaw's `agent {deliver: true}`): nil when it does not, or when
// no external channel or no recipient on it resolves and the request is
// best-effort. channel is the request's resolved inbound channel,
// replyChannel its resolved replyChannel ("" when it named none or
// "last"), s the session's row (nil when it has none yet).
func ForChat(req api.ChatRequest, channel, replyChannel string, s *domain.Session) (*Target, error) {
	if !req.Deliver {
		return nil, nil
	}
	// "last" (as replyChannel, or as the channel when there is none) leaves
	// the target to the session below: its delivery context, else its last
	// channel, the lastChannel sessions_list shows. The inbound channel's
	// "last" is the channel the session last heard on, which a later
	// webchat message turns into webchat.
	target := replyChannel
	if strings.TrimSpace(req.ReplyChannel) == "" {
		if c := strings.TrimSpace(req.Channel); c != "" && !strings.EqualFold(c, Last) {
			target = channel
		}
	}
	to := strings.TrimSpace(req.ReplyTo)
	if to == "" {
		to = strings.TrimSpace(req.To)
	}
	if s != nil {
		if target == "" {
			if s.Delivery != nil && s.Delivery.Channel != "" {
				target = s.Delivery.Channel
			} else {
				target = s.LastChannel
			}
		}
		if to == "" {
			to = RecipientOn(*s, target)
		}
	}
	if !Deliverable(target) {
		if req.BestEffortDeliver {
			return nil, nil
		}
		return nil, domain.Invalid("%s", api.DeliveryChannelRequired)
	}
	if to == "" {
		// An item with no recipient could only sit in the outbox until it
		// failed; the caller hears it now, before anything is written.
		if req.BestEffortDeliver {
			return nil, nil
		}
		return nil, domain.Invalid(api.DeliveryRecipientRequired, target)
	}
	return &Target{Channel: target, To: to}, nil
}

// RecipientOn is session s's recipient on channel: its delivery context's
// `to` when that context is on channel, else its lastTo when its last
// channel is; "" when it has none there. A recipient on another channel
// is never used.
func RecipientOn(s domain.Session, channel string) string {
	if channel == "" {
		return ""
	}
	if s.Delivery != nil && s.Delivery.Channel == channel && s.Delivery.To != "" {
		return s.Delivery.To
	}
	if s.LastChannel == channel {
		return s.LastTo
	}
	return ""
}

// Deliverable reports whether channel is an external channel a reply can
// be delivered to (webchat and internal replies are in the transcript
// already).
func Deliverable(channel string) bool {
	switch channel {
	case "", "webchat", "unknown", sessionkey.ChannelInternal:
		return false
	}
	return true
}

// SpecKey marks a run spec that carries a delivery target; a chat turn
// whose spec lacks it is not decoded when it ends (the writer goroutine).
var SpecKey = []byte(`"deliver":`)

// ReplyItem is the outbox item delivering a chat run's reply to t, queued
// in the transaction that records the run's end (docs/design.md#durability:
// deliveries go through the outbox); false when there is none to queue (a
// failed run, a silent or empty reply).
func ReplyItem(run domain.Run, t *Target, now int64) (domain.OutboxItem, bool, error) {
	if t == nil || run.Status != domain.RunOK || exchange.Silent(run.Reply) {
		return domain.OutboxItem{}, false, nil
	}
	payload, err := json.Marshal(map[string]string{"text": strings.TrimSpace(run.Reply)})
	if err != nil {
		return domain.OutboxItem{}, false, err
	}
	return domain.OutboxItem{IdempotencyKey: "deliver:" + run.ID, Kind: domain.OutboxDelivery,
		SessionKey: run.SessionKey, RunID: run.ID, Channel: t.Channel, To: t.To,
		Payload: payload, Status: domain.OutboxPending, NextAttemptAt: now, CreatedAt: now}, true, nil
}

// CommandItem is the outbox item carrying a chat command's answer (/new,
// /send off, …) to t, the chat the command came from. The answer is the
// gateway's, not the agent's, so no send policy holds it back: after
// `/send off` the sender still learns the command took. idem is the
// command message's (scoped) idempotency key, so a redelivered command
// answers once.
func CommandItem(key string, t Target, idem, text string, now int64) domain.OutboxItem {
	payload, _ := json.Marshal(Payload{Text: strings.TrimSpace(text)})
	return domain.OutboxItem{IdempotencyKey: commandPrefix + idem, Kind: domain.OutboxDelivery,
		SessionKey: key, Channel: t.Channel, To: t.To, Payload: payload, Status: domain.OutboxPending,
		NextAttemptAt: now, CreatedAt: now}
}

// commandPrefix starts the key of a CommandItem (other items' keys start
// "send:", "deliver:", …).
const commandPrefix = "command:"

// CommandAnswer reports an outbox item that carries a chat command's
// answer, which the send policy does not hold back at delivery either.
func CommandAnswer(it domain.OutboxItem) bool {
	return it.Kind == domain.OutboxDelivery && strings.HasPrefix(it.IdempotencyKey, commandPrefix)
}

// CheckOwnRecipient refuses a non-operator's chat that names a recipient
// (to or replyTo) other than session s's own on the channel the reply
// would go to: a delivered reply (deliver: true) to a recipient the caller
// chose is a direct send, which is operator-only, and a recipient recorded
// as the session's delivery context would receive its later announces.
// channel is the request's resolved channel, replyChannel the resolved
// replyChannel (channel when it named none or "last").
func CheckOwnRecipient(req api.ChatRequest, s domain.Session, channel, replyChannel string) error {
	to, replyTo := strings.TrimSpace(req.To), strings.TrimSpace(req.ReplyTo)
	if to != "" && to != RecipientOn(s, channel) {
		return notOwnRecipient(to, channel)
	}
	if replyTo != "" && replyTo != RecipientOn(s, replyChannel) {
		return notOwnRecipient(replyTo, replyChannel)
	}
	return nil
}

func notOwnRecipient(to, channel string) error {
	return domain.Errorf(domain.CodeForbidden, "recipient %q on %s is not this session's own: delivering to another recipient needs operator rights", query.Clip(to, 128), channel)
}

// CheckSend refuses a gateway send without its message or recipient, or
// with a text over its api limit.
func CheckSend(req api.DeliverRequest) error {
	if strings.TrimSpace(req.Message) == "" && len(req.Attachments) == 0 {
		return domain.Invalid("message required")
	}
	if strings.TrimSpace(req.To) == "" {
		// OpenClaw's `send` requires its recipient (OpenClaw's gateway methods).
		return domain.Invalid("to required (the recipient on the channel)")
	}
	for _, c := range []struct {
		l api.Limit
		s string
	}{{api.MessageChars, req.Message}, {api.DeliverToChars, req.To}, {api.DeliverChannelChars, req.Channel}} {
		if err := c.l.CheckChars(c.s); err != nil {
			return err
		}
	}
	return nil
}

// mirrorModel and mirrorKind mark the transcript copy of a gateway send
// (OpenClaw writes such mirrors with model "delivery-mirror" and zero
// usage).
const (
	mirrorModel = "delivery-mirror"
	mirrorKind  = "delivery"
)

// Payload is the payload of an outbox delivery item: the text (Markdown)
// and the files to send with it.
type Payload struct {
	Text  string        `json:"text"`
	Files []PayloadFile `json:"files,omitempty"`
}

// PayloadFile is one file of a Payload; Data is base64 in the JSON.
type PayloadFile struct {
	Name     string `json:"name"`
	MimeType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data"`
}

// fileChannels are the channels whose adapters can send files (those
// that are a channels.FileSender; internal/app's test checks the two agree).
var fileChannels = map[string]bool{"telegram": true, "discord": true, "signal": true, "whatsapp": true, "bluebubbles": true}

// SendsFiles reports a channel that can send files.
func SendsFiles(channel string) bool { return fileChannels[channel] }

// CheckFiles refuses files for a channel that cannot send them.
func CheckFiles(channel string, files []attachments.File) error {
	if len(files) > 0 && !fileChannels[channel] {
		return domain.Invalid("channel %s cannot send files yet", channel)
	}
	return nil
}

// MirrorText is the transcript text of a send of text and files: the text
// and a `[media sent: <name> (<type>)]` line per file.
func MirrorText(text string, files []attachments.File) string {
	lines := []string{}
	if strings.TrimSpace(text) != "" {
		lines = append(lines, text)
	}
	for _, f := range files {
		lines = append(lines, "[media sent: "+f.Name+" ("+attachments.TypeOf(f)+")]")
	}
	return strings.Join(lines, "\n")
}

// Mirror is the transcript copy of a gateway send of text: an assistant
// message of the session (OpenClaw's delivery mirror).
func Mirror(text string) domain.Message {
	return domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(domain.TextBlock(text)),
		API: "switchboard", Provider: "switchboard", Model: mirrorModel, StopReason: domain.StopReasonStop,
		Usage: &domain.Usage{}, Kind: mirrorKind}
}

// SendItem is the outbox item of a gateway send of text and files from
// session key to recipient to on channel, deduplicated by idem
// (at-least-once, so the recipient sees one). The files are stored in the
// item itself, so a delivery after a restart still has them.
func SendItem(key, channel, to, idem, text string, files []attachments.File, now int64) domain.OutboxItem {
	p := Payload{Text: text}
	for _, f := range files {
		p.Files = append(p.Files, PayloadFile{Name: f.Name, MimeType: attachments.TypeOf(f), Data: f.Data})
	}
	payload, _ := json.Marshal(p)
	return domain.OutboxItem{IdempotencyKey: "send:" + idem, Kind: domain.OutboxDelivery,
		SessionKey: key, Channel: channel, To: to, Payload: payload, Status: domain.OutboxPending,
		NextAttemptAt: now, CreatedAt: now}
}
