package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/runspec"

	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// errDeliveryExists ends the queueing transaction of a retried `send`
// whose idempotency key already has its outbox row.
var errDeliveryExists = errors.New("delivery already queued")

// checkSendPolicy refuses, for good, a channel message to a session whose
// send policy denies it (a session that cannot be read is not refused). A
// chat command's answer is the gateway's, not the agent's, and goes out.
func (e *Engine) checkSendPolicy(ctx context.Context, it domain.OutboxItem) error {
	if delivery.CommandAnswer(it) {
		return nil
	}
	facts, err := e.sessions.Facts(ctx, it.SessionKey)
	if err != nil {
		return nil
	}
	if d := policy.SendPolicy(e.conf().Session.SendPolicy, facts); !d.Allow {
		return fmt.Errorf("%w: send blocked by session policy (%s)", outbox.ErrPermanent, d.Reason)
	}
	return nil
}

// queueDelivery queues an outbound message in the outbox (at-least-once with an
// idempotency key, so the recipient sees one). It returns the outbox row.
// Deliver (service_sessions.go) gates it.
func (e *Engine) queueDelivery(ctx context.Context, req api.DeliverRequest) (domain.OutboxItem, error) {
	if err := delivery.CheckSend(req); err != nil {
		return domain.OutboxItem{}, err
	}
	key, err := e.resolveRef(ctx, Requester{Operator: true}, orDefault(req.SessionKey, "main"))
	if err != nil {
		return domain.OutboxItem{}, err
	}
	facts, err := e.sessions.Facts(ctx, key)
	if err != nil {
		return domain.OutboxItem{}, err
	}
	if d := policy.SendPolicy(e.conf().Session.SendPolicy, facts); !d.Allow {
		return domain.OutboxItem{}, domain.Invalid("send blocked by session policy")
	}
	channel := orDefault(req.Channel, facts.Channel)
	files, err := e.sendFiles(channel, req)
	if err != nil {
		return domain.OutboxItem{}, err
	}
	idem := req.IdempotencyKey
	if idem == "" {
		idem = e.newID()
	}
	now := e.nowMs()
	// The message is mirrored into the session's transcript (delivery.Mirror)
	// in the transaction that queues it (docs/design.md#durability): a
	// delivery to a channel with no external service is "in the
	// transcript", and readers of any channel's transcript see what the
	// session said on it. A retry with the same idempotency key finds its
	// first row and writes nothing.
	mirror := delivery.Mirror(delivery.MirrorText(req.Message, files))
	item := delivery.SendItem(key, channel, req.To, idem, req.Message, files, now)
	var stored domain.OutboxItem
	created := false
	_, err = e.rt.Inject(ctx, key, []domain.Message{mirror}, func(tx domain.Tx) (domain.Session, error) {
		var fresh bool
		var err error
		stored, fresh, err = tx.EnqueueOutbox(item)
		if err != nil {
			return domain.Session{}, err
		}
		if !fresh {
			return domain.Session{}, errDeliveryExists
		}
		s, made, err := e.sessions.Ensure(tx, key, nil)
		created = made
		return s, err
	})
	if errors.Is(err, errDeliveryExists) {
		return stored, nil
	}
	if err != nil {
		return domain.OutboxItem{}, err
	}
	if created {
		e.publishSession(key, "created")
	}
	e.poke()
	return stored, nil
}

// chatDelivery resolves where a chat run's reply is delivered
// (delivery.ForChat) with the session's row and the request's reply
// channel resolved as an inbound channel. channel is the request's
// resolved inbound channel.
func (e *Engine) chatDelivery(ctx context.Context, key, channel string, req api.ChatRequest) (*delivery.Target, error) {
	if !req.Deliver {
		return nil, nil
	}
	replyChannel := ""
	if rc := strings.TrimSpace(req.ReplyChannel); rc != "" && !strings.EqualFold(rc, delivery.Last) {
		c, err := e.inboundChannel(ctx, key, rc)
		if err != nil {
			return nil, err
		}
		replyChannel = c
	}
	var row *domain.Session
	if s, err := e.store.GetSession(ctx, key); err == nil {
		row = &s
	}
	return delivery.ForChat(req, channel, replyChannel, row)
}

// chatDelivered queues the delivery of a chat run's reply in the
// transaction that records the run's end (delivery.ReplyItem).
func (e *Engine) chatDelivered(tx domain.Tx, run domain.Run) error {
	if run.Status != domain.RunOK || !bytes.Contains(run.Spec, delivery.SpecKey) {
		return nil
	}
	spec, err := runspec.Decode(run)
	if err != nil || spec.Deliver == nil {
		return nil
	}
	it, ok, err := delivery.ReplyItem(run, spec.Deliver, e.nowMs())
	if err != nil || !ok {
		return err
	}
	_, _, err = tx.EnqueueOutbox(it)
	return err
}

// ownRecipient refuses a non-operator's chat that names a recipient other
// than session key's own (delivery.CheckOwnRecipient).
func (e *Engine) ownRecipient(ctx context.Context, key string, req api.ChatRequest) error {
	if strings.TrimSpace(req.To) == "" && strings.TrimSpace(req.ReplyTo) == "" {
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
	target := channel
	if rc := strings.TrimSpace(req.ReplyChannel); rc != "" && !strings.EqualFold(rc, delivery.Last) {
		if target, err = e.inboundChannel(ctx, key, rc); err != nil {
			return err
		}
	}
	return delivery.CheckOwnRecipient(req, s, channel, target)
}
