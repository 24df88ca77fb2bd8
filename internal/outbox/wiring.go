package outbox

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Wiring is what the gateway's worker takes from its host: the channels
// that carry announces and sends, the deliverer of a sub-agent's result
// into its requester session, and who is told of an archived session.
type Wiring struct {
	Store    Store
	Channels Channels
	// SubagentAnnounce delivers a sub-agent's result into its requester
	// session (a run there, which only the host can start).
	SubagentAnnounce Deliverer
	// Hosted are the deliverers of item kinds only the host knows (an
	// agent-to-agent message held on a paused edge).
	Hosted map[domain.OutboxKind]Deliverer
	// Archived is told of each cleanup item done (the session archived,
	// before or now, or gone).
	Archived func(key string)
	Publish  func(domain.Event)
	Logger   *slog.Logger
	Now      func() time.Time
	Interval time.Duration
	Taker    Taker
}

// Wire builds the worker with one deliverer per item kind: channel
// messages by channel kind (provider adapter, webhook or local), a
// sub-agent's announce into its requester session, and archives.
func Wire(w Wiring) (*Worker, error) {
	now := w.Now
	if now == nil {
		now = time.Now
	}
	deliverers := map[domain.OutboxKind]Deliverer{
		domain.OutboxAnnounce:         w.Channels,
		domain.OutboxDelivery:         w.Channels,
		domain.OutboxSubagentAnnounce: w.SubagentAnnounce,
		domain.OutboxCleanup: DelivererFunc(func(ctx context.Context, it domain.OutboxItem) error {
			err := Archive(ctx, w.Store, it.SessionKey, now().UnixMilli())
			if err == nil && w.Archived != nil {
				w.Archived(it.SessionKey)
			}
			return err
		}),
	}
	for kind, d := range w.Hosted {
		deliverers[kind] = d
	}
	return New(Config{
		Store:      w.Store,
		Deliverers: deliverers,
		Publish:    w.Publish,
		Logger:     w.Logger,
		Now:        w.Now,
		Interval:   w.Interval,
		Taker:      w.Taker,
	})
}

// Archive hides a finished child from listings; its transcript stays. A
// session that is gone or archived already is left as it is.
func Archive(ctx context.Context, st Store, key string, now int64) error {
	return st.Update(ctx, func(tx domain.Tx) error {
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
}
