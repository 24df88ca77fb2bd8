package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Webhook delivers a channel message by POSTing JSON to the channel's URL
// with the item's idempotency key (body and Idempotency-Key header), so
// the receiver can drop repeats. 2xx is delivered; 429 and 5xx are
// retried; any other status, and a payload that does not decode, fail for
// good.
type Webhook struct {
	URL    string
	Client *http.Client
}

// Deliver posts the item.
func (w Webhook) Deliver(ctx context.Context, it domain.OutboxItem) error {
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(it.Payload, &p); err != nil {
		// A stored payload that does not decode never delivers: fail the
		// item visibly instead of posting an empty message.
		return fmt.Errorf("%w: outbox payload does not decode: %v", ErrPermanent, err)
	}
	body, err := json.Marshal(map[string]any{"idempotencyKey": it.IdempotencyKey, "sessionKey": it.SessionKey,
		"channel": it.Channel, "to": it.To, "message": p.Text})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", it.IdempotencyKey)
	client := w.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", it.Channel, err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("webhook %s: %s", it.Channel, resp.Status)
	}
	return fmt.Errorf("%w: webhook %s: %s", ErrPermanent, it.Channel, resp.Status)
}

// Channels delivers channel messages (announce replies, gateway `send`)
// with one deliverer per channel kind: the provider adapter of a chat
// channel (External), Webhook for a channel that has a webhook URL, Local
// for the rest.
type Channels struct {
	// Check may refuse an item before delivery (the session's send
	// policy); its error is returned as is. Nil allows every item.
	Check func(ctx context.Context, it domain.OutboxItem) error
	// External returns the deliverer of a provider channel (telegram,
	// discord), false for a channel with none. Nil: no provider channels.
	External func(channel string) (Deliverer, bool)
	// Webhooks maps a channel name to its webhook URL.
	Webhooks map[string]string
	// Client posts to webhooks.
	Client *http.Client
}

// For returns the deliverer of a channel.
func (c Channels) For(channel string) Deliverer {
	if c.External != nil {
		if d, ok := c.External(channel); ok {
			return d
		}
	}
	if url := c.Webhooks[channel]; url != "" {
		return Webhook{URL: url, Client: c.Client}
	}
	return Local{}
}

// Deliver checks the item, then delivers it through its channel's deliverer.
func (c Channels) Deliver(ctx context.Context, it domain.OutboxItem) error {
	if c.Check != nil {
		if err := c.Check(ctx, it); err != nil {
			return err
		}
	}
	return c.For(it.Channel).Deliver(ctx, it)
}
