// Package signal is the Signal channel: a channels.Adapter speaking to
// signal-cli's HTTP daemon (`signal-cli daemon --http`), as OpenClaw
// does: received messages arrive as server-sent events at
// /api/v1/events, replies leave through the JSON-RPC method `send` at
// /api/v1/rpc. No Go client library for the daemon's HTTP API exists, so
// the package speaks it directly (docs/dependencies.md).
package signal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Channel is the channel name.
const Channel = "signal"

// Options build an Adapter.
type Options struct {
	// Raw is the `channels.signal` block.
	Raw    map[string]any
	Getenv func(string) string
	Logger *slog.Logger
	// HTTPClient carries the daemon calls (default: one without a
	// timeout; each call has its own deadline, the event stream none).
	HTTPClient *http.Client
	// Backoff is the wait before the n-th reconnect or retry (default
	// outbox.Backoff).
	Backoff func(n int) time.Duration
	// Paired reports a direct sender approved by pairing; Pair asks for a
	// pairing code for an unknown one (nil: pairing answers nothing).
	Paired func(account, sender string) bool
	Pair   func(ctx context.Context, account, sender, name string) (code string, fresh bool, err error)
}

// Adapter is the Signal channel.
type Adapter struct {
	o        Options
	log      *slog.Logger
	accounts []*acct
	progress channels.Progress

	mu     sync.Mutex
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// acct is one Signal account at run time.
type acct struct {
	account
	base string
	channels.Counters
}

// New builds the adapter of a `channels.signal` block; it reaches no
// network until Start.
func New(o Options) (*Adapter, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Backoff == nil {
		o.Backoff = outbox.Backoff
	}
	accts, err := parse(o.Raw)
	if err != nil {
		return nil, err
	}
	a := &Adapter{o: o, log: o.Logger.With("channel", Channel)}
	for _, k := range channels.NoEffect("channels.signal", o.Raw, effectKeys) {
		a.log.Warn("config key accepted without effect (docs/channels.md)", "key", k)
	}
	for _, ac := range accts {
		x := &acct{account: ac, base: ac.cfg.baseURL()}
		if _, err := url.Parse(x.base); err != nil {
			return nil, fmt.Errorf("channels.signal account %s: httpUrl: %w", ac.id, err)
		}
		a.accounts = append(a.accounts, x)
	}
	return a, nil
}

// Channel is "signal".
func (a *Adapter) Channel() string { return Channel }

func (x *acct) enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// Start starts the event stream of every enabled account.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return errors.New("signal: already started")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel = cancel
	for _, x := range a.accounts {
		if !x.enabled() {
			continue
		}
		x.Started(time.Now())
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.receive(ctx, x, sink)
		}()
	}
	return nil
}

// Stop ends the event streams and waits for them.
func (a *Adapter) Stop(ctx context.Context) error {
	a.mu.Lock()
	cancel := a.cancel
	a.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("signal: stop: %w", ctx.Err())
	}
}

// receive keeps an account's event stream open, reconnecting with
// backoff. Events are handled one at a time and the next is read only
// once the last one's turn is durable, so a handling failure holds the
// stream rather than skipping the message.
func (a *Adapter) receive(ctx context.Context, x *acct, sink channels.Sink) {
	x.SetRunning(true)
	defer x.SetRunning(false)
	fails := 0
	for ctx.Err() == nil {
		connected, err := a.stream(ctx, x, sink)
		if ctx.Err() != nil {
			return
		}
		x.SetConnected(false)
		if connected {
			fails = 0
		}
		fails++
		if err == nil {
			err = errors.New("event stream ended")
		}
		x.SetError(err)
		a.log.Warn("signal event stream lost, reconnecting", "account", x.id, "err", err)
		if !channels.Sleep(ctx, a.o.Backoff(fails)) {
			return
		}
	}
}

// stream reads one connection of the event stream until it ends.
func (a *Adapter) stream(ctx context.Context, x *acct, sink channels.Sink) (bool, error) {
	u := x.base + "/api/v1/events"
	if x.cfg.Account != "" {
		u += "?account=" + url.QueryEscape(x.cfg.Account)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := a.o.HTTPClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return false, fmt.Errorf("events: %s %s", resp.Status, strings.TrimSpace(string(b)))
	}
	x.SetConnected(true)
	a.log.Info("signal event stream connected", "account", x.id)
	r := newSSEReader(resp.Body)
	for {
		typ, data, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return true, nil
			}
			return true, err
		}
		if typ != "" && typ != "receive" {
			continue
		}
		if err := a.handleEvent(ctx, x, sink, data); err != nil {
			return true, err // ctx ended while a message was held
		}
	}
}

// handleEvent handles one receive event, retrying until its turn is
// durable or ctx ends.
func (a *Adapter) handleEvent(ctx context.Context, x *acct, sink channels.Sink, data []byte) error {
	in, err := decodeEvent(x.id, x.cfg.Account, x.cfg.AccountUUID, data)
	if err != nil {
		if !errors.Is(err, errNotMessage) {
			a.log.Warn("signal event not understood", "account", x.id, "err", err)
		}
		return nil
	}
	switch v, why := x.cfg.access().Decide(&in, func(s string) bool { return a.o.Paired != nil && a.o.Paired(x.id, s) }); v {
	case channels.Drop:
		a.log.Debug("signal message dropped", "account", x.id, "chat", in.ChatID, "sender", in.SenderID, "reason", why)
		return nil
	case channels.Pair:
		a.pairing(ctx, x, in)
		return nil
	}
	for attempt := 1; ; attempt++ {
		out, err := sink.Handle(ctx, in)
		if err == nil {
			if !out.Duplicate {
				x.Received(time.Now())
				a.typing(ctx, x, sink, in.To, out.RunID)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.log.Warn("signal message not handled, retrying", "account", x.id, "event", in.EventID, "err", err)
		if !channels.Sleep(ctx, a.o.Backoff(attempt)) {
			return ctx.Err()
		}
	}
}

// pairing answers an unknown direct sender with a pairing code.
func (a *Adapter) pairing(ctx context.Context, x *acct, in channels.Inbound) {
	if a.o.Pair == nil {
		return
	}
	code, fresh, err := a.o.Pair(ctx, x.id, in.SenderID, in.SenderName)
	if err != nil || !fresh {
		if err != nil {
			a.log.Info("signal pairing refused", "account", x.id, "sender", in.SenderID, "err", err)
		}
		return
	}
	if err := a.send(ctx, x, in.To, channels.PairingText("Signal", Channel, in.SenderID, code), ""); err != nil {
		a.log.Warn("signal pairing code not sent", "account", x.id, "err", err)
	}
}

// Send delivers an outbound message to a chat, split at textChunkLimit.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) error {
	x := a.account(msg.AccountID)
	if x == nil {
		return outbox.Permanent(fmt.Errorf("signal: no account %q", msg.AccountID))
	}
	err := a.send(ctx, x, msg.To, msg.Text, msg.IdempotencyKey, dataURIs(msg.Files)...)
	x.Sent(err, time.Now())
	return err
}

// account returns the account with id (the first enabled one for the
// default).
func (a *Adapter) account(id string) *acct {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, x := range a.accounts {
		if x.id == id {
			return x
		}
	}
	if id == "" || id == channels.DefaultAccountID {
		for _, x := range a.accounts {
			if x.enabled() {
				return x
			}
		}
	}
	return nil
}

// Status reports each account.
func (a *Adapter) Status() []channels.AccountStatus {
	out := make([]channels.AccountStatus, 0, len(a.accounts))
	for _, x := range a.accounts {
		s := channels.AccountStatus{AccountID: x.id, Name: x.cfg.Name, Enabled: x.enabled(),
			Configured: x.base != "", Mode: "sse", BotUsername: x.cfg.Account}
		x.Fill(&s)
		out = append(out, s)
	}
	return out
}

var _ channels.Adapter = (*Adapter)(nil)
