package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// DeliverRequest is a direct outbound message to a channel (gateway `send`).
type DeliverRequest = api.DeliverRequest

// queueDelivery queues an outbound message in the outbox (at-least-once with an
// idempotency key, so the recipient sees one). It returns the outbox row.
// Deliver (service_sessions.go) gates it.
func (e *Engine) queueDelivery(ctx context.Context, req DeliverRequest) (domain.OutboxItem, error) {
	if strings.TrimSpace(req.Message) == "" {
		return domain.OutboxItem{}, domain.Invalid("message required")
	}
	if err := api.MessageChars.CheckChars(req.Message); err != nil {
		return domain.OutboxItem{}, err
	}
	key, err := e.resolveRef(ctx, Requester{Operator: true}, orDefault(req.SessionKey, "main"))
	if err != nil {
		return domain.OutboxItem{}, err
	}
	facts, err := e.sessionFacts(ctx, key)
	if err != nil {
		return domain.OutboxItem{}, err
	}
	if d := policy.SendPolicy(e.conf().Session.SendPolicy, facts); !d.Allow {
		return domain.OutboxItem{}, domain.Invalid("send blocked by session policy")
	}
	channel := orDefault(req.Channel, facts.Channel)
	idem := req.IdempotencyKey
	if idem == "" {
		idem = e.newID()
	}
	payload, _ := json.Marshal(map[string]string{"text": req.Message})
	var stored domain.OutboxItem
	now := e.nowMs()
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		var err error
		stored, _, err = tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "send:" + idem, Kind: domain.OutboxDelivery,
			SessionKey: key, Channel: channel, To: req.To, Payload: payload, Status: domain.OutboxPending,
			NextAttemptAt: now, CreatedAt: now})
		return err
	})
	if err != nil {
		return domain.OutboxItem{}, err
	}
	e.poke()
	return stored, nil
}
