package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// newOutbox builds the outbox worker with one deliverer per item kind:
// channel messages by channel kind (provider adapter, webhook or local), a sub-agent's
// announce into its requester session, and archives.
func (e *Engine) newOutbox(hc *http.Client, interval time.Duration, claimer outbox.Claimer) (*outbox.Worker, error) {
	webhooks := map[string]string{}
	for name, ch := range e.cfg.Channels.Webhook {
		webhooks[name] = ch.URL
	}
	channels := outbox.Channels{Check: e.checkSendPolicy, Webhooks: webhooks, Client: hc}
	if e.channels != nil {
		channels.External = e.channels.Deliverer
	}
	return outbox.New(outbox.Config{
		Store: e.store,
		Deliverers: map[domain.OutboxKind]outbox.Deliverer{
			domain.OutboxAnnounce:         channels,
			domain.OutboxDelivery:         channels,
			domain.OutboxSubagentAnnounce: outbox.DelivererFunc(e.deliverSubagentAnnounce),
			outboxHeldSend:                outbox.DelivererFunc(e.deliverHeldSend),
			domain.OutboxCleanup: outbox.DelivererFunc(func(ctx context.Context, it domain.OutboxItem) error {
				return e.archive(ctx, it.SessionKey)
			}),
		},
		Publish:  e.bus.publish,
		Logger:   e.log,
		Now:      e.now,
		Interval: interval,
		Claimer:  claimer,
	})
}

// checkSendPolicy refuses, for good, a channel message to a session whose
// send policy denies it (a session that cannot be read is not refused).
func (e *Engine) checkSendPolicy(ctx context.Context, it domain.OutboxItem) error {
	facts, err := e.sessionFacts(ctx, it.SessionKey)
	if err != nil {
		return nil
	}
	if d := policy.SendPolicy(e.conf().Session.SendPolicy, facts); !d.Allow {
		return fmt.Errorf("%w: send blocked by session policy (%s)", outbox.ErrPermanent, d.Reason)
	}
	return nil
}

// archive hides a finished child from listings; its transcript stays.
func (e *Engine) archive(ctx context.Context, key string) error {
	now := e.nowMs()
	err := e.store.Update(ctx, func(tx domain.Tx) error {
		s, err := tx.GetSession(key)
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if s.ArchivedAt > 0 {
			return nil
		}
		s.ArchivedAt = now
		return tx.PutSession(s)
	})
	if err == nil {
		e.publishSession(key, "archived")
	}
	return err
}

// outbox lists outbox items (operator surfaces).
func (e *Engine) outbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error) {
	return e.store.ListOutbox(ctx, q)
}
