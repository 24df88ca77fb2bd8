package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/switchboard-go/switchboard/internal/query"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/exchange"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// chatDelivery resolves where a chat run's reply is delivered when the
// request asks for it (OpenClaw's `agent {deliver: true}`): nil when it
// does not, or when no external channel or no recipient on it resolves
// and the request is best-effort. channel is the request's resolved
// inbound channel.
func (e *Engine) chatDelivery(ctx context.Context, key, channel string, req api.ChatRequest) (*deliverSpec, error) {
	if !req.Deliver {
		return nil, nil
	}
	// "last" (as replyChannel, or as the channel when there is none) leaves
	// the target to the session below: its delivery context, else its last
	// channel, the lastChannel sessions_list shows. inboundChannel's "last"
	// is the channel the session last heard on, which a later webchat
	// message turns into webchat.
	target := ""
	if rc := strings.TrimSpace(req.ReplyChannel); rc != "" {
		if !strings.EqualFold(rc, channelLast) {
			c, err := e.inboundChannel(ctx, key, rc)
			if err != nil {
				return nil, err
			}
			target = c
		}
	} else if c := strings.TrimSpace(req.Channel); c != "" && !strings.EqualFold(c, channelLast) {
		target = channel
	}
	to := strings.TrimSpace(req.ReplyTo)
	if to == "" {
		to = strings.TrimSpace(req.To)
	}
	if s, err := e.store.GetSession(ctx, key); err == nil {
		if target == "" {
			if s.Delivery != nil && s.Delivery.Channel != "" {
				target = s.Delivery.Channel
			} else {
				target = s.LastChannel
			}
		}
		if to == "" {
			to = recipientOn(s, target)
		}
	}
	if !deliverable(target) {
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
	return &deliverSpec{Channel: target, To: to}, nil
}

// recipientOn is session s's recipient on channel: its delivery context's
// `to` when that context is on channel, else its lastTo when its last
// channel is; "" when it has none there. A recipient on another channel
// is never used.
func recipientOn(s domain.Session, channel string) string {
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

// deliverable reports whether channel is an external channel a reply can
// be delivered to (webchat and internal replies are in the transcript
// already).
func deliverable(channel string) bool {
	switch channel {
	case "", "webchat", "unknown", sessionkey.ChannelInternal:
		return false
	}
	return true
}

// deliverKey marks a run spec that carries a delivery target; a chat turn
// whose spec lacks it is not decoded when it ends (the writer goroutine).
var deliverKey = []byte(`"deliver":`)

// chatDelivered queues the delivery of a chat run's reply, in the
// transaction that records the run's end (docs/design.md#durability: deliveries go through
// the outbox). A failed run, or a silent or empty reply, delivers nothing.
func (e *Engine) chatDelivered(tx domain.Tx, run domain.Run) error {
	if run.Status != domain.RunOK || exchange.Silent(run.Reply) || !bytes.Contains(run.Spec, deliverKey) {
		return nil
	}
	spec, err := decodeSpec(run)
	if err != nil || spec.Deliver == nil {
		return nil
	}
	payload, err := json.Marshal(map[string]string{"text": strings.TrimSpace(run.Reply)})
	if err != nil {
		return err
	}
	now := e.nowMs()
	_, _, err = tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "deliver:" + run.ID, Kind: domain.OutboxDelivery,
		SessionKey: run.SessionKey, RunID: run.ID, Channel: spec.Deliver.Channel, To: spec.Deliver.To,
		Payload: payload, Status: domain.OutboxPending, NextAttemptAt: now, CreatedAt: now})
	return err
}

// ownRecipient refuses a non-operator's chat that names a recipient (to or
// replyTo) other than session key's own on the channel the reply would go
// to: a delivered reply (deliver: true) to a recipient the caller chose is
// a direct send, which is operator-only, and a recipient recorded as the
// session's delivery context would receive its later announces.
func (e *Engine) ownRecipient(ctx context.Context, key string, req api.ChatRequest) error {
	to, replyTo := strings.TrimSpace(req.To), strings.TrimSpace(req.ReplyTo)
	if to == "" && replyTo == "" {
		return nil
	}
	var s domain.Session
	if row, err := e.store.GetSession(ctx, key); err == nil {
		s = row
	}
	channel, err := e.inboundChannel(ctx, key, req.Channel)
	if err != nil {
		return err
	}
	if to != "" && to != recipientOn(s, channel) {
		return notOwnRecipient(to, channel)
	}
	if replyTo != "" {
		target := channel
		if rc := strings.TrimSpace(req.ReplyChannel); rc != "" && !strings.EqualFold(rc, channelLast) {
			if target, err = e.inboundChannel(ctx, key, rc); err != nil {
				return err
			}
		}
		if replyTo != recipientOn(s, target) {
			return notOwnRecipient(replyTo, target)
		}
	}
	return nil
}

func notOwnRecipient(to, channel string) error {
	return domain.Errorf(domain.CodeForbidden, "recipient %q on %s is not this session's own: delivering to another recipient needs operator rights", query.Clip(to, 128), channel)
}
