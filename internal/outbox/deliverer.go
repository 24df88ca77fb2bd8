package outbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Deliverer delivers one outbox item. An error wrapping ErrPermanent
// fails the item for good; any other error is retried.
type Deliverer interface {
	Deliver(ctx context.Context, item domain.OutboxItem) error
}

// DelivererFunc adapts a function to Deliverer.
type DelivererFunc func(ctx context.Context, item domain.OutboxItem) error

// Deliver calls f.
func (f DelivererFunc) Deliver(ctx context.Context, item domain.OutboxItem) error {
	return f(ctx, item)
}

// ErrPermanent marks a delivery failure that retrying cannot fix.
var ErrPermanent = errors.New("permanent delivery failure")

// Permanent wraps err as a permanent failure.
func Permanent(err error) error { return fmt.Errorf("%w: %w", ErrPermanent, err) }

// Local delivers to a channel with no external service (webchat,
// internal, unknown): the message is in the session's transcript already
// and the worker pushes the outbox event, so delivery completes at once.
type Local struct{}

// Deliver completes at once.
func (Local) Deliver(context.Context, domain.OutboxItem) error { return nil }

var (
	_ Deliverer = Local{}
	_ Deliverer = Webhook{}
	_ Deliverer = Channels{}
	_ Deliverer = DelivererFunc(nil)
)
