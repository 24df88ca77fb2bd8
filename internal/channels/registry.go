package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// SessionReader reads a session row (the outbox item's account lookup).
type SessionReader interface {
	GetSession(ctx context.Context, key string) (domain.Session, error)
}

// Registry holds a gateway's adapters, one per channel name. Register
// them before Start; the Registry owns them from then on.
type Registry struct {
	log      *slog.Logger
	sessions SessionReader

	mu       sync.Mutex
	adapters map[string]Adapter
	started  []Adapter
	running  bool
}

// NewRegistry builds an empty registry. sessions lets deliveries find the
// account a session last heard on (nil: always the default account).
func NewRegistry(log *slog.Logger, sessions SessionReader) *Registry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Registry{log: log, sessions: sessions, adapters: map[string]Adapter{}}
}

// Register adds an adapter; a second adapter for the same channel, or one
// registered after Start, is an error.
func (r *Registry) Register(a Adapter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		return fmt.Errorf("channels: register %s after start", a.Channel())
	}
	if _, ok := r.adapters[a.Channel()]; ok {
		return fmt.Errorf("channels: %s registered twice", a.Channel())
	}
	r.adapters[a.Channel()] = a
	return nil
}

// Adapter returns the adapter of a channel.
func (r *Registry) Adapter(channel string) (Adapter, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.adapters[channel]
	return a, ok
}

// Channels returns the registered channel names, sorted.
func (r *Registry) Channels() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.adapters))
	for n := range r.adapters {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Start starts every adapter's receiving with sink. An adapter that fails
// to start is logged and skipped (the others and the gateway keep
// serving); its Status says why.
func (r *Registry) Start(ctx context.Context, sink Sink) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		return errors.New("channels: already started")
	}
	r.running = true
	names := make([]string, 0, len(r.adapters))
	for n := range r.adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := r.adapters[n]
		if err := a.Start(ctx, sink); err != nil {
			r.log.Error("channel did not start", "channel", n, "err", err)
			continue
		}
		r.started = append(r.started, a)
	}
	return nil
}

// Stop stops the started adapters, last started first, and waits for
// them up to ctx's end.
func (r *Registry) Stop(ctx context.Context) error {
	r.mu.Lock()
	started := r.started
	r.started = nil
	r.mu.Unlock()
	var errs []error
	for i := len(started) - 1; i >= 0; i-- {
		if err := started[i].Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("channels: stop %s: %w", started[i].Channel(), err))
		}
	}
	return errors.Join(errs...)
}

// Status returns every channel's account statuses, by channel name.
func (r *Registry) Status() map[string][]AccountStatus {
	r.mu.Lock()
	as := make([]Adapter, 0, len(r.adapters))
	for _, a := range r.adapters {
		as = append(as, a)
	}
	r.mu.Unlock()
	out := make(map[string][]AccountStatus, len(as))
	for _, a := range as {
		out[a.Channel()] = a.Status()
	}
	return out
}

// Deliverer returns the outbox deliverer of a registered channel: it
// decodes the item's text and sends it with the account the item's
// session last heard on.
func (r *Registry) Deliverer(channel string) (outbox.Deliverer, bool) {
	a, ok := r.Adapter(channel)
	if !ok {
		return nil, false
	}
	return outbox.DelivererFunc(func(ctx context.Context, it domain.OutboxItem) error {
		var p delivery.Payload
		if err := json.Unmarshal(it.Payload, &p); err != nil {
			return outbox.Permanent(fmt.Errorf("outbox payload does not decode: %w", err))
		}
		var files []attachments.File
		for _, f := range p.Files {
			files = append(files, attachments.File{Name: f.Name, MimeType: f.MimeType, Data: f.Data})
		}
		if _, ok := a.(FileSender); len(files) > 0 && !ok {
			return outbox.Permanent(fmt.Errorf("channel %s cannot send files yet", channel))
		}
		return a.Send(ctx, Outbound{AccountID: r.accountOf(ctx, channel, it.SessionKey), To: it.To, Text: p.Text, Files: files,
			IdempotencyKey: it.IdempotencyKey, SessionKey: it.SessionKey, RunID: replyRun(it)})
	}), true
}

// replyRun is the run an item delivers the reply of ("" for other items).
func replyRun(it domain.OutboxItem) string {
	if it.Kind == domain.OutboxDelivery && strings.HasPrefix(it.IdempotencyKey, "deliver:") {
		return it.RunID
	}
	return ""
}

// accountOf is the account a session's deliveries on channel use: its
// delivery context's, else its last account, else the default.
func (r *Registry) accountOf(ctx context.Context, channel, key string) string {
	if r.sessions == nil || key == "" {
		return DefaultAccountID
	}
	s, err := r.sessions.GetSession(ctx, key)
	if err != nil {
		return DefaultAccountID
	}
	if d := s.Delivery; d != nil && d.Channel == channel && d.AccountID != "" {
		return d.AccountID
	}
	if s.LastChannel == channel && s.LastAccount != "" {
		return s.LastAccount
	}
	return DefaultAccountID
}
