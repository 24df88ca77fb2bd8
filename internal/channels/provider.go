package channels

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// ProviderOptions build an adapter of a provider that switchboard speaks
// to over plain HTTP (Signal, WhatsApp, BlueBubbles): each such package
// names them its Options.
type ProviderOptions struct {
	// Raw is the `channels.<name>` block.
	Raw    map[string]any
	Getenv func(string) string
	Logger *slog.Logger
	// HTTPClient carries the provider calls (default: one without a
	// timeout; each call has its own deadline).
	HTTPClient *http.Client
	// Backoff is the wait before the n-th reconnect or retry of a startup
	// check (default outbox.Backoff).
	Backoff func(n int) time.Duration
	// Paired reports a direct sender approved by pairing; Pair asks for a
	// pairing code for an unknown one (nil: pairing answers nothing).
	Paired func(account, sender string) bool
	Pair   func(ctx context.Context, account, sender, name string) (code string, fresh bool, err error)
	// MediaLimits bound the files a message brings in
	// (tools.sessions_spawn.attachments; zero fields: the defaults).
	MediaLimits attachments.Limits
}

// Provider is what the adapters of ProviderOptions share: their options
// with the defaults filled, a logger naming the channel, the run state
// Start begins and Stop ends, and the progress of split sends.
type Provider struct {
	// Name is the channel name ("signal"); Label names the provider to
	// users in a pairing answer ("Signal").
	Name, Label string
	O           ProviderOptions
	Log         *slog.Logger
	Progress    Progress

	mu     sync.Mutex
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewProvider fills o's defaults.
func NewProvider(name, label string, o ProviderOptions) *Provider {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Backoff == nil {
		o.Backoff = outbox.Backoff
	}
	return &Provider{Name: name, Label: label, O: o, Log: o.Logger.With("channel", name)}
}

// WarnNoEffect logs each key of the block that is accepted without effect.
func (p *Provider) WarnNoEffect(effect map[string]bool) {
	for _, k := range NoEffect("channels."+p.Name, p.O.Raw, effect) {
		p.Log.Warn("config key accepted without effect (docs/channels.md)", "key", k)
	}
}

// Begin starts the run: the context it returns outlives ctx and ends at
// End. A second Begin is an error.
func (p *Provider) Begin(ctx context.Context) (context.Context, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancel != nil {
		return nil, fmt.Errorf("%s: already started", p.Name)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	return ctx, nil
}

// Go runs f as one of the run's goroutines, which End waits for.
func (p *Provider) Go(f func()) { p.wg.Go(f) }

// Wait is the group End waits for (a webhook listener joins it).
func (p *Provider) Wait() *sync.WaitGroup { return &p.wg }

// End ends the run, calls shutdown (closing listeners) and waits for the
// run's goroutines up to ctx's end. Without a Begin it does nothing.
func (p *Provider) End(ctx context.Context, shutdown func(context.Context)) error {
	p.mu.Lock()
	cancel := p.cancel
	p.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	if shutdown != nil {
		shutdown(ctx)
	}
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: stop: %w", p.Name, ctx.Err())
	}
}

// Admit applies an account's access rules to m: it reports whether m goes
// on to the Sink. A dropped message is logged; an unknown direct sender
// under dmPolicy "pairing" is answered with a pairing code through reply.
func (p *Provider) Admit(ctx context.Context, acc Access, accountID string, m *Inbound, reply func(ctx context.Context, to, text string) error) bool {
	paired := func(s string) bool { return p.O.Paired != nil && p.O.Paired(accountID, s) }
	switch v, why := acc.Decide(m, paired); v {
	case Drop:
		p.Log.Debug(p.Name+" message dropped", "account", accountID, "chat", m.ChatID, "sender", m.SenderID, "reason", why)
		return false
	case Pair:
		p.pairing(ctx, accountID, *m, reply)
		return false
	}
	return true
}

// pairing answers an unknown direct sender with a pairing code, once per
// code.
func (p *Provider) pairing(ctx context.Context, accountID string, m Inbound, reply func(ctx context.Context, to, text string) error) {
	if p.O.Pair == nil {
		return
	}
	code, fresh, err := p.O.Pair(ctx, accountID, m.SenderID, m.SenderName)
	if err != nil || !fresh {
		if err != nil {
			p.Log.Info(p.Name+" pairing refused", "account", accountID, "sender", m.SenderID, "err", err)
		}
		return
	}
	if err := reply(ctx, m.To, PairingText(p.Label, p.Name, m.SenderID, code)); err != nil {
		p.Log.Warn(p.Name+" pairing code not sent", "account", accountID, "err", err)
	}
}

// Probe calls check until the provider answers, so that status shows a
// refused credential (which ends the probing) or a provider down. It
// backs off between tries and returns when check succeeds, check's error
// is permanent, or ctx ends.
func (p *Provider) Probe(ctx context.Context, c *Counters, accountID string, check func(context.Context) error) {
	for attempt := 1; ; attempt++ {
		err := check(ctx)
		if err == nil {
			c.SetConnected(true)
			return
		}
		if ctx.Err() != nil {
			return
		}
		c.SetConnected(false)
		c.SetError(err)
		if errors.Is(err, outbox.ErrPermanent) {
			p.Log.Error(p.Name+" refused the account", "account", accountID, "err", err)
			return
		}
		if !Sleep(ctx, p.O.Backoff(attempt)) {
			return
		}
	}
}

// SendPieces sends pieces in order through send; a retried delivery
// (same idem) resumes after the pieces the provider already took.
func (p *Provider) SendPieces(idem string, pieces []string, send func(i int, piece string) error) error {
	for i := p.Progress.Done(idem); i < len(pieces); i++ {
		if err := send(i, pieces[i]); err != nil {
			return err
		}
		p.Progress.Set(idem, i+1)
	}
	p.Progress.Set(idem, 0)
	return nil
}

// HandleCounted hands m to sink and counts it received unless it was a
// duplicate; a nil error means m may be acknowledged.
func HandleCounted(ctx context.Context, sink Sink, c *Counters, m Inbound) (Outcome, error) {
	out, err := sink.Handle(ctx, m)
	if err == nil && !out.Duplicate {
		c.Received(time.Now())
	}
	return out, err
}

// RunAccount is an account of a Provider at run time.
type RunAccount interface {
	// AccountID is the account's id (lower case).
	AccountID() string
	// Enabled reports whether the account runs.
	Enabled() bool
}

// FindAccount returns the account with id, or for "" and the default id
// the first enabled account; ok is false when there is none.
func FindAccount[T RunAccount](accts []T, id string) (T, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, x := range accts {
		if x.AccountID() == id {
			return x, true
		}
	}
	if id == "" || id == DefaultAccountID {
		for _, x := range accts {
			if x.Enabled() {
				return x, true
			}
		}
	}
	var zero T
	return zero, false
}

// Typing shows a typing indicator while a turn's run runs, in one of the
// run's goroutines: start at once and every `every` (KeepTyping), then
// stop once the run ended if a start was taken (nil stop: the provider
// hides the indicator itself). It never holds or fails the reply.
func (p *Provider) Typing(ctx context.Context, sink Sink, runID string, every time.Duration, start, stop func(context.Context) error) {
	if runID == "" || ctx.Err() != nil {
		return
	}
	p.Go(func() {
		started := false
		KeepTyping(ctx, sink, runID, every, func(ctx context.Context) error {
			err := start(ctx)
			started = started || err == nil
			return err
		})
		if started && stop != nil && ctx.Err() == nil {
			_ = stop(ctx)
		}
	})
}
