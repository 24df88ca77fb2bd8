package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// outboxMaxAttempts is the retry budget of one outbox item; after it the
// item is marked failed (visible in `switchboard outbox` and metrics).
const outboxMaxAttempts = 8

// maintain is the engine's background loop: it delivers due outbox items
// (announces, archives) and retries failed deliveries with backoff.
func (e *Engine) maintain() {
	defer e.wg.Done()
	t := time.NewTicker(e.interval)
	defer t.Stop()
	for {
		e.deliverDue(e.ctx)
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
		case <-e.wake:
		}
	}
}

// deliverDue delivers every outbox item that is due now.
func (e *Engine) deliverDue(ctx context.Context) {
	for ctx.Err() == nil {
		items, err := e.store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []string{domain.OutboxPending}, DueBefore: e.nowMs(), Limit: 100})
		if err != nil {
			if ctx.Err() == nil {
				e.log.Error("outbox: list due items", "err", err)
			}
			return
		}
		for _, it := range items {
			if ctx.Err() != nil {
				return
			}
			e.deliverOne(ctx, it)
		}
		if len(items) < 100 {
			return
		}
	}
}

// deliverOne attempts one item and records the outcome.
func (e *Engine) deliverOne(ctx context.Context, it domain.OutboxItem) {
	err := e.deliver(ctx, it)
	if ctx.Err() != nil {
		return // shutting down: try again at the next start
	}
	now := e.nowMs()
	it.Attempts++
	switch {
	case err == nil:
		it.Status = domain.OutboxDelivered
		it.DeliveredAt = now
		it.LastError = ""
	case errors.Is(err, errPermanent) || it.Attempts >= outboxMaxAttempts:
		it.Status = domain.OutboxFailed
		it.LastError = err.Error()
		e.log.Error("outbox: delivery failed for good", "id", it.ID, "kind", it.Kind, "session", it.SessionKey, "attempts", it.Attempts, "err", err)
	default:
		backoff := time.Second << min(it.Attempts-1, 6)
		it.NextAttemptAt = now + backoff.Milliseconds()
		it.LastError = err.Error()
		e.log.Warn("outbox: delivery failed, will retry", "id", it.ID, "kind", it.Kind, "in", backoff, "err", err)
	}
	if err := e.store.Update(ctx, func(tx domain.Tx) error { return tx.PutOutbox(it) }); err != nil {
		e.log.Error("outbox: record attempt", "id", it.ID, "err", err)
		return
	}
	e.bus.publish(domain.Event{Kind: domain.EventOutbox, SessionKey: it.SessionKey, Outbox: &it, TS: now})
}

var errPermanent = errors.New("permanent delivery failure")

func (e *Engine) deliver(ctx context.Context, it domain.OutboxItem) error {
	switch it.Kind {
	case domain.OutboxSubagentAnnounce:
		return e.deliverSubagentAnnounce(ctx, it)
	case domain.OutboxAnnounce, domain.OutboxDelivery:
		return e.deliverToChannel(ctx, it)
	case domain.OutboxCleanup:
		return e.archive(ctx, it.SessionKey)
	}
	return fmt.Errorf("%w: unknown outbox kind %q", errPermanent, it.Kind)
}

// deliverToChannel posts a message to a session's channel. Channels with
// no external service (webchat, internal, unknown) have the message in the
// transcript already, so delivery completes at once.
func (e *Engine) deliverToChannel(ctx context.Context, it domain.OutboxItem) error {
	facts, err := e.sessionFacts(ctx, it.SessionKey)
	if err == nil {
		if d := policy.SendPolicy(e.cfg.Session.SendPolicy, facts); !d.Allow {
			return fmt.Errorf("%w: send blocked by session policy (%s)", errPermanent, d.Reason)
		}
	}
	ch, ok := e.cfg.Channels[it.Channel]
	if !ok || ch.WebhookURL == "" {
		return nil
	}
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(it.Payload, &p); err != nil {
		// A stored payload that does not decode never delivers: fail the
		// item visibly instead of posting an empty message.
		return fmt.Errorf("%w: outbox payload does not decode: %v", errPermanent, err)
	}
	body, err := json.Marshal(map[string]any{"idempotencyKey": it.IdempotencyKey, "sessionKey": it.SessionKey,
		"channel": it.Channel, "to": it.To, "message": p.Text})
	if err != nil {
		return fmt.Errorf("%w: %v", errPermanent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ch.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %v", errPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", it.IdempotencyKey)
	resp, err := e.hc.Do(req)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", it.Channel, err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == 429 || resp.StatusCode >= 500:
		return fmt.Errorf("webhook %s: %s", it.Channel, resp.Status)
	}
	return fmt.Errorf("%w: webhook %s: %s", errPermanent, it.Channel, resp.Status)
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
