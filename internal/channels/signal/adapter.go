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
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Channel is the channel name.
const Channel = "signal"

// Options build an Adapter.
type Options = channels.ProviderOptions

// Adapter is the Signal channel.
type Adapter struct {
	p        *channels.Provider
	accounts []*acct
}

// acct is one Signal account at run time.
type acct struct {
	account
	base string
	channels.Counters
}

// AccountID is the account's id.
func (x *acct) AccountID() string { return x.id }

// Enabled reports whether the account runs.
func (x *acct) Enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// New builds the adapter of a `channels.signal` block; it reaches no
// network until Start.
func New(o Options) (*Adapter, error) {
	a := &Adapter{p: channels.NewProvider(Channel, "Signal", o)}
	accts, err := parse(a.p.O.Raw)
	if err != nil {
		return nil, err
	}
	a.p.WarnNoEffect(effectKeys)
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

// Start starts the event stream of every enabled account.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	ctx, err := a.p.Begin(ctx)
	if err != nil {
		return err
	}
	for _, x := range a.accounts {
		if !x.Enabled() {
			continue
		}
		x.Started(time.Now())
		a.p.Go(func() { a.receive(ctx, x, sink) })
	}
	return nil
}

// Stop ends the event streams and waits for them.
func (a *Adapter) Stop(ctx context.Context) error { return a.p.End(ctx, nil) }

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
		a.p.Log.Warn("signal event stream lost, reconnecting", "account", x.id, "err", err)
		if !channels.Sleep(ctx, a.p.O.Backoff(fails)) {
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
	resp, err := a.p.O.HTTPClient.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return false, fmt.Errorf("events: %s %s", resp.Status, strings.TrimSpace(string(b)))
	}
	x.SetConnected(true)
	a.p.Log.Info("signal event stream connected", "account", x.id)
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

// handleEvent handles one receive event, retrying (its files' fetch, then
// its turn) until the turn is durable or ctx ends.
func (a *Adapter) handleEvent(ctx context.Context, x *acct, sink channels.Sink, data []byte) error {
	in, atts, err := decodeEvent(x.id, x.cfg.Account, x.cfg.AccountUUID, data)
	if err != nil {
		if !errors.Is(err, errNotMessage) {
			a.p.Log.Warn("signal event not understood", "account", x.id, "err", err)
		}
		return nil
	}
	if !a.p.Admit(ctx, x.cfg.access(), x.id, &in, func(ctx context.Context, to, text string) error {
		return a.send(ctx, x, to, text, "")
	}) {
		return nil
	}
	fetched := len(atts) == 0
	for attempt := 1; ; attempt++ {
		var out channels.Outcome
		err := a.fetchMedia(ctx, x, atts, &in, fetched)
		if err == nil {
			fetched = true
			out, err = channels.HandleCounted(ctx, sink, &x.Counters, in)
		}
		if err == nil {
			if !out.Duplicate {
				a.typing(ctx, x, sink, in.To, out.RunID)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.p.Log.Warn("signal message not handled, retrying", "account", x.id, "event", in.EventID, "err", err)
		if !channels.Sleep(ctx, a.p.O.Backoff(attempt)) {
			return ctx.Err()
		}
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
// default), nil for none.
func (a *Adapter) account(id string) *acct {
	x, _ := channels.FindAccount(a.accounts, id)
	return x
}

// Status reports each account.
func (a *Adapter) Status() []channels.AccountStatus {
	out := make([]channels.AccountStatus, 0, len(a.accounts))
	for _, x := range a.accounts {
		s := channels.AccountStatus{AccountID: x.id, Name: x.cfg.Name, Enabled: x.Enabled(),
			Configured: x.base != "", Mode: "sse", BotUsername: x.cfg.Account}
		x.Fill(&s)
		out = append(out, s)
	}
	return out
}

var _ channels.Adapter = (*Adapter)(nil)
