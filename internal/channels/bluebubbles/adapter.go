// Package bluebubbles is the iMessage channel through a BlueBubbles
// server (OpenClaw's former `bluebubbles` channel): messages arrive at a
// webhook the server posts to (authenticated by the server password in
// the URL, as OpenClaw's was), replies leave through its REST API
// (POST /api/v1/message/text). BlueBubbles has no Go client library, so
// the package speaks its HTTP API directly (docs/dependencies.md).
package bluebubbles

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Channel is the channel name: the config key, the session key segment
// and a row's `channel`, as OpenClaw named it.
const Channel = "bluebubbles"

// maxDeliveryBytes bounds a webhook delivery.
const maxDeliveryBytes = 4 << 20

// Options build an Adapter.
type Options struct {
	// Raw is the `channels.bluebubbles` block.
	Raw    map[string]any
	Getenv func(string) string
	Logger *slog.Logger
	// HTTPClient carries REST calls (default: one without a timeout; each
	// call has its own deadline).
	HTTPClient *http.Client
	// Backoff is the wait before the n-th retry of the startup ping
	// (default outbox.Backoff).
	Backoff func(n int) time.Duration
	// Paired reports a direct sender approved by pairing; Pair asks for a
	// pairing code for an unknown one (nil: pairing answers nothing).
	Paired func(account, sender string) bool
	Pair   func(ctx context.Context, account, sender, name string) (code string, fresh bool, err error)
}

// Adapter is the BlueBubbles channel.
type Adapter struct {
	o        Options
	log      *slog.Logger
	accounts []*acct
	progress channels.Progress

	mu        sync.Mutex
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	listeners []*listener
}

// acct is one BlueBubbles server at run time.
type acct struct {
	account
	channels.Counters
	mu sync.Mutex // serializes message handling
}

// listener is one webhook listener and the accounts behind its paths.
type listener struct {
	addr  string
	srv   *http.Server
	bound string
	paths map[string][]*acct
}

// New builds the adapter of a `channels.bluebubbles` block; it reaches no
// network until Start.
func New(o Options) (*Adapter, error) {
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
	accts, err := parse(o.Raw, o.Getenv)
	if err != nil {
		return nil, err
	}
	a := &Adapter{o: o, log: o.Logger.With("channel", Channel)}
	for _, k := range channels.NoEffect("channels.bluebubbles", o.Raw, effectKeys) {
		a.log.Warn("config key accepted without effect (docs/channels.md)", "key", k)
	}
	for _, ac := range accts {
		x := &acct{account: ac}
		if ac.problem != "" {
			x.SetError(errors.New(ac.problem))
		}
		a.accounts = append(a.accounts, x)
	}
	return a, nil
}

// Channel is "bluebubbles".
func (a *Adapter) Channel() string { return Channel }

func (x *acct) enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// Start serves the webhook of every enabled, configured account and
// pings each server.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return errors.New("bluebubbles: already started")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel = cancel
	byAddr := map[string]*listener{}
	for _, x := range a.accounts {
		if !x.enabled() {
			continue
		}
		if x.problem != "" {
			a.log.Error("bluebubbles account not started", "account", x.id, "err", x.problem)
			continue
		}
		l := byAddr[x.webhookAddr]
		if l == nil {
			l = &listener{addr: x.webhookAddr, paths: map[string][]*acct{}}
			byAddr[x.webhookAddr] = l
			a.listeners = append(a.listeners, l)
		}
		l.paths[x.hookPath] = append(l.paths[x.hookPath], x)
		x.Started(time.Now())
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.ping(ctx, x)
		}()
	}
	for _, l := range a.listeners {
		mux := http.NewServeMux()
		for path, accts := range l.paths {
			mux.Handle(path, a.handler(ctx, accts, sink))
		}
		srv, bound, err := channels.Listen(l.addr, mux, &a.wg, a.log)
		if err != nil {
			for _, accts := range l.paths {
				for _, x := range accts {
					x.SetError(err)
				}
			}
			a.log.Error("bluebubbles webhook not started", "addr", l.addr, "err", err)
			continue
		}
		l.srv, l.bound = srv, bound.String()
		for _, accts := range l.paths {
			for _, x := range accts {
				x.SetRunning(true)
			}
		}
		a.log.Info("bluebubbles webhook listening", "addr", l.bound)
	}
	return nil
}

// WebhookURL is the local URL an account's webhook listens at (after
// Start, without the password), "" when it does not listen.
func (a *Adapter) WebhookURL(accountID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, l := range a.listeners {
		for path, accts := range l.paths {
			for _, x := range accts {
				if x.id == accountID && l.bound != "" {
					return "http://" + l.bound + path
				}
			}
		}
	}
	return ""
}

// Stop closes the webhook listeners and waits for the adapter's
// goroutines.
func (a *Adapter) Stop(ctx context.Context) error {
	a.mu.Lock()
	cancel := a.cancel
	ls := a.listeners
	a.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	for _, l := range ls {
		if l.srv != nil {
			_ = l.srv.Shutdown(ctx)
		}
	}
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bluebubbles: stop: %w", ctx.Err())
	}
}

// ping calls GET /api/v1/ping until the server answers, so status shows
// a refused password (which stops the pinging) or a server down.
func (a *Adapter) ping(ctx context.Context, x *acct) {
	for attempt := 1; ; attempt++ {
		err := a.rest(ctx, x, http.MethodGet, "/api/v1/ping", nil)
		if err == nil {
			x.SetConnected(true)
			return
		}
		if ctx.Err() != nil {
			return
		}
		x.SetConnected(false)
		x.SetError(err)
		if errors.Is(err, outbox.ErrPermanent) {
			a.log.Error("bluebubbles refused the account", "account", x.id, "err", err)
			return
		}
		if !channels.Sleep(ctx, a.o.Backoff(attempt)) {
			return
		}
	}
}

// webhookPassword is the password a delivery carries in its URL
// (`password`, or BlueBubbles' aliases `guid` and `token`).
func webhookPassword(r *http.Request) string {
	q := r.URL.Query()
	for _, k := range []string{"password", "guid", "token"} {
		if v := q.Get(k); v != "" {
			return v
		}
	}
	return r.Header.Get("X-Password")
}

// handler serves one webhook path. A delivery whose password matches no
// account gets 401 and changes nothing; one is answered 200 only once its
// turn is durable (BlueBubbles retries a failed delivery).
func (a *Adapter) handler(ctx context.Context, accts []*acct, sink channels.Sink) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		var x *acct
		pw := webhookPassword(r)
		for _, c := range accts {
			if subtle.ConstantTimeCompare([]byte(pw), []byte(c.password)) == 1 {
				x = c
				break
			}
		}
		if x == nil {
			a.log.Warn("bluebubbles webhook: delivery with a wrong password refused", "remote", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxDeliveryBytes+1))
		if err != nil || len(body) > maxDeliveryBytes {
			http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		in, err := decodeEvent(x.id, body)
		if err != nil {
			if !errors.Is(err, errIgnored) {
				a.log.Warn("bluebubbles webhook: delivery not understood", "account", x.id, "err", err)
			}
			w.WriteHeader(http.StatusOK)
			return
		}
		hctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		runID, err := a.handle(hctx, x, sink, in)
		if err != nil {
			a.log.Warn("bluebubbles message not handled, asking for redelivery", "account", x.id, "message", in.EventID, "err", err)
			http.Error(w, "not handled, retry", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
		a.typing(ctx, x, sink, in.To, runID)
	})
}

// handle applies the access rules to a message and hands it on; a nil
// error means it may be acknowledged. It returns the run the message
// started, if any.
func (a *Adapter) handle(ctx context.Context, x *acct, sink channels.Sink, in channels.Inbound) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if name := strings.TrimSpace(x.cfg.Name); name != "" && strings.Contains(strings.ToLower(in.Text), "@"+strings.ToLower(name)) {
		in.Mentioned = true
	}
	switch v, why := x.cfg.access().Decide(&in, func(s string) bool { return a.o.Paired != nil && a.o.Paired(x.id, s) }); v {
	case channels.Drop:
		a.log.Debug("bluebubbles message dropped", "account", x.id, "chat", in.ChatID, "sender", in.SenderID, "reason", why)
		return "", nil
	case channels.Pair:
		a.pairing(ctx, x, in)
		return "", nil
	}
	out, err := sink.Handle(ctx, in)
	if err != nil {
		return "", err
	}
	if out.Duplicate {
		return "", nil
	}
	x.Received(time.Now())
	return out.RunID, nil
}

// pairing answers an unknown direct sender with a pairing code.
func (a *Adapter) pairing(ctx context.Context, x *acct, in channels.Inbound) {
	if a.o.Pair == nil {
		return
	}
	code, fresh, err := a.o.Pair(ctx, x.id, in.SenderID, in.SenderName)
	if err != nil || !fresh {
		if err != nil {
			a.log.Info("bluebubbles pairing refused", "account", x.id, "sender", in.SenderID, "err", err)
		}
		return
	}
	if err := a.send(ctx, x, in.To, channels.PairingText("iMessage", Channel, in.SenderID, code), ""); err != nil {
		a.log.Warn("bluebubbles pairing code not sent", "account", x.id, "err", err)
	}
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
			Configured: x.problem == "", Mode: "webhook"}
		x.Fill(&s)
		out = append(out, s)
	}
	return out
}

var _ channels.Adapter = (*Adapter)(nil)
