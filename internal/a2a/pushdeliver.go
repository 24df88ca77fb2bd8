package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// PushTokenHeader carries a config's token on each notification (when
// the config has no authentication scheme), so the receiver can tell
// the notifications it asked for.
const PushTokenHeader = "X-A2A-Notification-Token"

// pushTimeout bounds one notification's request.
const pushTimeout = 10 * time.Second

// PushDeliverer is the outbox deliverer of PushKind items: it posts the
// update to its config's URL. The URL is checked again by the guard (and
// every address dialled), a redirect is not followed, 2xx is delivered,
// 408, 429 and 5xx are retried within the outbox's bounded budget, and
// anything else fails the item for good. A config deleted since the item
// was queued drops it.
type PushDeliverer struct {
	Store  PushStore
	Guard  *urlguard.Guard
	Logger *slog.Logger
	// Client posts notifications; nil uses Guard.Client.
	Client *http.Client
}

// NewPushDeliverer builds a PushDeliverer whose client is the guard's.
func NewPushDeliverer(st PushStore, g *urlguard.Guard, log *slog.Logger) PushDeliverer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return PushDeliverer{Store: st, Guard: g, Logger: log, Client: g.Client(pushTimeout)}
}

// Deliver posts one update.
func (d PushDeliverer) Deliver(ctx context.Context, it domain.OutboxItem) error {
	var p pushItem
	if err := json.Unmarshal(it.Payload, &p); err != nil {
		return outbox.Permanent(fmt.Errorf("push payload does not decode: %w", err))
	}
	c, ok, err := pushConfigByKey(ctx, d.Store, it.RunID, p.Config)
	if err != nil {
		return err
	}
	if !ok {
		if d.Logger != nil {
			d.Logger.Info("a2a push: config deleted, update dropped", "task", it.RunID, "update", p.Update)
		}
		return nil
	}
	if _, err := d.Guard.CheckURL(c.URL); err != nil {
		return outbox.Permanent(fmt.Errorf("push config %s: %w", c.ID, err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(p.Body))
	if err != nil {
		return outbox.Permanent(fmt.Errorf("push config %s: %w", c.ID, err))
	}
	req.Header.Set("Content-Type", p.ContentType)
	// Repeated after a crash between the post and its record: the
	// receiver drops a key it has seen.
	req.Header.Set("Idempotency-Key", it.IdempotencyKey)
	switch {
	case c.Scheme != "" && c.Credentials != "":
		req.Header.Set("Authorization", c.Scheme+" "+c.Credentials)
	case c.Token != "":
		req.Header.Set(PushTokenHeader, c.Token)
	}
	client := d.Client
	if client == nil {
		client = d.Guard.Client(pushTimeout)
	}
	resp, err := client.Do(req)
	if err != nil {
		if urlguard.Refused(err) {
			return outbox.Permanent(fmt.Errorf("push config %s: %w", c.ID, err))
		}
		return fmt.Errorf("push config %s: %w", c.ID, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return nil
	case s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500:
		return fmt.Errorf("push config %s: receiver answered %s", c.ID, resp.Status)
	case s >= 300 && s < 400:
		return outbox.Permanent(fmt.Errorf("push config %s: receiver answered %s (redirects are not followed)", c.ID, resp.Status))
	}
	return outbox.Permanent(fmt.Errorf("push config %s: receiver answered %s", c.ID, resp.Status))
}

var _ outbox.Deliverer = PushDeliverer{}
