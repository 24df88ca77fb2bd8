package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Defaults of Config.
const (
	// DefaultInterval is how often the worker looks for due items.
	DefaultInterval = time.Second
	// DefaultMaxAttempts is the retry budget of one item; after it the
	// item is failed (visible in `switchboard outbox` and metrics).
	DefaultMaxAttempts = 8
	// DefaultBatchSize is how many due items one query takes.
	DefaultBatchSize = 100
)

// Store is what the worker needs of the store.
type Store interface {
	ListOutbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error)
	Update(ctx context.Context, fn func(domain.Tx) error) error
}

// Config configures a Worker. Store and Deliverers are required.
type Config struct {
	Store Store
	// Deliverers maps an outbox kind (domain.Outbox…) to its deliverer.
	// An item of a kind without one fails for good.
	Deliverers map[domain.OutboxKind]Deliverer
	// Publish receives an outbox event after every recorded attempt.
	Publish func(domain.Event)
	Logger  *slog.Logger
	Now     func() time.Time
	// Interval is how often due items are looked for (DefaultInterval).
	Interval time.Duration
	// MaxAttempts is each item's retry budget (DefaultMaxAttempts).
	MaxAttempts int
	// BatchSize is how many due items one query takes (DefaultBatchSize).
	BatchSize int
	// Taker, when set, hands out due items instead of listing them, so
	// that workers of several replicas never deliver the same item at once
	// (nil: the worker is alone on its store).
	Taker Taker
}

// Taker takes due outbox items for one worker among several sharing a
// store: an item it returns is not returned to another worker until this
// one records an attempt, or until its lease on them expires (its worker
// died mid-delivery; the item is then delivered again, and its
// idempotency key keeps the recipient from seeing it twice).
type Taker interface {
	TakeOutbox(ctx context.Context, dueBefore int64, limit int) ([]domain.OutboxItem, error)
}

// Releaser is a Taker that can give taken items back. A worker that
// stops cleanly releases the items it took and did not attempt, so
// another replica delivers them at once rather than after the
// lease.
type Releaser interface {
	ReleaseOutbox(ctx context.Context, items []domain.OutboxItem, dueAt int64) error
}

// releaseTimeout bounds the release of taken items at a stop.
const releaseTimeout = 5 * time.Second

// withDefaults fills unset fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Store == nil {
		return c, errors.New("outbox: Config.Store is required")
	}
	if len(c.Deliverers) == 0 {
		return c, errors.New("outbox: Config.Deliverers is required")
	}
	if c.Publish == nil {
		c.Publish = func(domain.Event) {}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	return c, nil
}

// Worker delivers due outbox items. Start runs it in the background; its
// owner calls Stop. RunOnce is one pass, for tests and callers that drive
// it themselves.
type Worker struct {
	cfg  Config
	wake chan struct{}

	// passes counts the passes that ran to their end (Passes).
	passes atomic.Uint64

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
}

// New builds a worker.
func New(cfg Config) (*Worker, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Worker{cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// Start runs the worker until Stop: a pass at once, then one per Interval
// or Poke.
func (w *Worker) Start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done != nil || w.stopped {
		return errors.New("outbox: worker already started")
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go w.loop(ctx, w.done)
	return nil
}

// Stop ends the worker and waits for the pass in progress, up to ctx's
// end. An item whose delivery the stop cuts short stays pending for the
// next start; one whose delivery completes as the stop begins is
// recorded as delivered.
func (w *Worker) Stop(ctx context.Context) error {
	w.mu.Lock()
	w.stopped = true
	cancel, done := w.cancel, w.done
	w.mu.Unlock()
	if done == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("outbox: stop: %w", ctx.Err())
	}
}

// Poke makes the worker look for due items now (new work was queued).
func (w *Worker) Poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(w.cfg.Interval)
	defer t.Stop()
	for {
		w.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
		}
	}
}

// Result counts what one pass did.
type Result struct {
	// Delivered, Retried and Failed count attempts by outcome.
	Delivered, Retried, Failed int
	// Err is the error that ended the pass early (listing due items).
	Err error
}

// Passes returns how many passes ran to their end since the worker was
// built (a pass the stop cut short, or whose listing failed, is not
// counted). An item due before a pass began and not taken elsewhere was
// attempted by the time that pass ended, so the count tells an observer
// (metrics, tests) that the worker has looked again since some moment.
func (w *Worker) Passes() uint64 { return w.passes.Load() }

// RunOnce delivers every item due now, batch after batch, and records
// each attempt. It stops early when ctx ends.
func (w *Worker) RunOnce(ctx context.Context) (res Result) {
	defer func() {
		if ctx.Err() == nil && res.Err == nil {
			w.passes.Add(1)
		}
	}()
	for ctx.Err() == nil {
		items, err := w.due(ctx)
		if err != nil {
			if ctx.Err() == nil {
				w.cfg.Logger.Error("outbox: list due items", "err", err)
				res.Err = fmt.Errorf("outbox: list due items: %w", err)
			}
			return res
		}
		for i, it := range items {
			if ctx.Err() != nil {
				w.release(items[i:])
				return res
			}
			switch w.attempt(ctx, it) {
			case domain.OutboxDelivered:
				res.Delivered++
			case domain.OutboxFailed:
				res.Failed++
			case domain.OutboxPending:
				res.Retried++
			case "":
				if ctx.Err() != nil { // stopping: it and the rest go back
					w.release(items[i:])
					return res
				}
			}
		}
		if len(items) < w.cfg.BatchSize {
			return res
		}
	}
	return res
}

// due returns the next batch of due items: taken ones when workers
// share the store, else the pending ones.
func (w *Worker) due(ctx context.Context) ([]domain.OutboxItem, error) {
	now := w.cfg.Now().UnixMilli()
	if w.cfg.Taker != nil {
		return w.cfg.Taker.TakeOutbox(ctx, now, w.cfg.BatchSize)
	}
	return w.cfg.Store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending},
		DueBefore: now, Limit: w.cfg.BatchSize})
}

// release gives back taken items not attempted (the worker stops), when
// its Taker can.
func (w *Worker) release(items []domain.OutboxItem) {
	r, ok := w.cfg.Taker.(Releaser)
	if !ok || len(items) == 0 {
		return
	}
	// The stop cancelled the pass's context; the release must still land.
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := r.ReleaseOutbox(ctx, items, w.cfg.Now().UnixMilli()); err != nil {
		w.cfg.Logger.Warn("outbox: release taken items at stop", "items", len(items), "err", err)
	}
}

// recordAtStop bounds recording a delivery that completed as the worker
// was being stopped.
const recordAtStop = 5 * time.Second

// attempt delivers one item and records the outcome; it returns the
// item's new status ("" when nothing was recorded).
func (w *Worker) attempt(ctx context.Context, it domain.OutboxItem) domain.OutboxStatus {
	err := w.deliverTraced(ctx, it)
	rctx := ctx
	if ctx.Err() != nil {
		if err != nil {
			return "" // cut short by the stop: try again at the next start
		}
		// Delivered as the stop began: recorded, so that the next start
		// does not send it again.
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), recordAtStop)
		defer cancel()
	}
	now := w.cfg.Now().UnixMilli()
	it.Attempts++
	log := w.cfg.Logger
	switch {
	case err == nil:
		it.Status = domain.OutboxDelivered
		it.DeliveredAt = now
		it.LastError = ""
	case errors.Is(err, ErrPermanent) || it.Attempts >= w.cfg.MaxAttempts:
		it.Status = domain.OutboxFailed
		it.LastError = err.Error()
		log.Error("outbox: delivery failed for good", "id", it.ID, "kind", it.Kind, "session", it.SessionKey, "attempts", it.Attempts, "err", err)
	default:
		backoff := Backoff(it.Attempts)
		var ra retryAfter
		if errors.As(err, &ra) {
			// The provider said when (Telegram retry_after, Discord
			// Retry-After): sooner would be refused again.
			backoff = max(ra.RetryAfter(), 0)
		}
		it.NextAttemptAt = now + backoff.Milliseconds()
		it.LastError = err.Error()
		log.Warn("outbox: delivery failed, will retry", "id", it.ID, "kind", it.Kind, "in", backoff, "err", err)
	}
	if err := w.cfg.Store.Update(rctx, func(tx domain.Tx) error { return tx.PutOutbox(it) }); err != nil {
		log.Error("outbox: record attempt", "id", it.ID, "err", err)
		return ""
	}
	w.cfg.Publish(domain.Event{Kind: domain.EventOutbox, SessionKey: it.SessionKey, Outbox: &it, TS: now})
	return it.Status
}

func (w *Worker) deliver(ctx context.Context, it domain.OutboxItem) error {
	d, ok := w.cfg.Deliverers[it.Kind]
	if !ok {
		return fmt.Errorf("%w: unknown outbox kind %q", ErrPermanent, it.Kind)
	}
	return d.Deliver(ctx, it)
}

// retryAfter is an error that carries the provider's own wait before a
// retry (channels.RetryAfterError).
type retryAfter interface {
	error
	RetryAfter() time.Duration
}

// Backoff is the wait before the next attempt after attempts failed
// ones: 1 s, doubling up to 64 s.
func Backoff(attempts int) time.Duration {
	return time.Second << min(max(attempts, 1)-1, 6)
}
