// Package whatsapp is the WhatsApp channel through the official WhatsApp
// Business Cloud API: replies leave with POST /<version>/<phone-number-id>/messages
// (a bearer token), messages and status callbacks arrive at a webhook
// that answers Meta's hub.challenge handshake and checks every delivery's
// X-Hub-Signature-256 against the app secret. OpenClaw drives WhatsApp
// Web instead; the Cloud API is the route a server can run. No
// maintained Go client of the Cloud API exists, so the package speaks
// its HTTP API directly (docs/dependencies.md).
package whatsapp

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

// Channel is the channel name.
const Channel = "whatsapp"

// maxDeliveryBytes bounds a webhook delivery.
const maxDeliveryBytes = 4 << 20

// maxStatuses bounds the remembered message statuses per account.
const maxStatuses = 10000

// Options build an Adapter.
type Options struct {
	// Raw is the `channels.whatsapp` block.
	Raw    map[string]any
	Getenv func(string) string
	Logger *slog.Logger
	// HTTPClient carries Graph API calls (default: one without a timeout;
	// each call has its own deadline).
	HTTPClient *http.Client
	// Backoff is the wait before the n-th retry of the startup probe
	// (default outbox.Backoff).
	Backoff func(n int) time.Duration
	// Paired reports a direct sender approved by pairing; Pair asks for a
	// pairing code for an unknown one (nil: pairing answers nothing).
	Paired func(account, sender string) bool
	Pair   func(ctx context.Context, account, sender, name string) (code string, fresh bool, err error)
}

// Adapter is the WhatsApp channel.
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

// acct is one phone number at run time.
type acct struct {
	account
	channels.Counters
	mu       sync.Mutex // serializes message handling (order per number)
	stMu     sync.Mutex
	statuses map[string]Status
	stOrder  []string
}

// listener is one webhook listener: the accounts that share its address.
type listener struct {
	addr  string
	srv   *http.Server
	bound string
	paths map[string][]*acct
}

// New builds the adapter of a `channels.whatsapp` block; it reaches no
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
	for _, k := range channels.NoEffect("channels.whatsapp", o.Raw, effectKeys) {
		a.log.Warn("config key accepted without effect (docs/channels.md)", "key", k)
	}
	for _, ac := range accts {
		x := &acct{account: ac, statuses: map[string]Status{}}
		if ac.problem != "" {
			x.SetError(errors.New(ac.problem))
		}
		a.accounts = append(a.accounts, x)
	}
	return a, nil
}

// Channel is "whatsapp".
func (a *Adapter) Channel() string { return Channel }

func (x *acct) enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// Start serves the webhook of every enabled, configured account and
// checks each access token against the Graph API.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return errors.New("whatsapp: already started")
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel = cancel
	byAddr := map[string]*listener{}
	for _, x := range a.accounts {
		if !x.enabled() {
			continue
		}
		if x.problem != "" {
			a.log.Error("whatsapp account not started", "account", x.id, "err", x.problem)
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
			a.probe(ctx, x)
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
			a.log.Error("whatsapp webhook not started", "addr", l.addr, "err", err)
			continue
		}
		l.srv, l.bound = srv, bound.String()
		for _, accts := range l.paths {
			for _, x := range accts {
				x.SetRunning(true)
			}
		}
		a.log.Info("whatsapp webhook listening", "addr", l.bound)
	}
	return nil
}

// WebhookURL is the local URL an account's webhook listens at (after
// Start), "" when it does not listen.
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
		return fmt.Errorf("whatsapp: stop: %w", ctx.Err())
	}
}

// probe reads the phone number from the Graph API until it answers, so
// status shows a refused token (which stops the probing) or an
// unreachable API.
func (a *Adapter) probe(ctx context.Context, x *acct) {
	for attempt := 1; ; attempt++ {
		err := a.graph(ctx, x, http.MethodGet, "/"+x.cfg.PhoneNumberID, nil, nil)
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
			a.log.Error("whatsapp refused the account", "account", x.id, "err", err)
			return
		}
		if !channels.Sleep(ctx, a.o.Backoff(attempt)) {
			return
		}
	}
}

// handler serves one webhook path: the GET handshake, and POSTed
// deliveries whose signature one of the accounts' app secrets verifies.
// A delivery is answered 200 only once its messages' turns are durable
// (anything else makes Meta deliver it again); a wrong signature gets
// 401 and changes nothing.
func (a *Adapter) handler(ctx context.Context, accts []*acct, sink channels.Sink) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			q := r.URL.Query()
			if q.Get("hub.mode") == "subscribe" {
				for _, x := range accts {
					if subtle.ConstantTimeCompare([]byte(q.Get("hub.verify_token")), []byte(x.verifyToken)) == 1 {
						w.Header().Set("Content-Type", "text/plain")
						_, _ = io.WriteString(w, q.Get("hub.challenge"))
						return
					}
				}
			}
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		case http.MethodPost:
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxDeliveryBytes+1))
		if err != nil || len(body) > maxDeliveryBytes {
			http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		var signed []*acct
		for _, x := range accts {
			if validSignature(x.appSecret, body, r.Header.Get(signatureHeader)) {
				signed = append(signed, x)
			}
		}
		if len(signed) == 0 {
			a.log.Warn("whatsapp webhook: delivery with a wrong signature refused", "remote", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		ds, err := decodePayload(body)
		if err != nil {
			// A body that never decodes would be delivered again forever.
			a.log.Warn("whatsapp webhook: delivery does not decode", "err", err)
			w.WriteHeader(http.StatusOK)
			return
		}
		hctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		for _, d := range ds {
			x := pick(signed, d.phoneNumberID)
			if x == nil {
				a.log.Warn("whatsapp webhook: delivery for an unknown phone number", "phoneNumberId", d.phoneNumberID)
				continue
			}
			for _, st := range d.statuses {
				a.recordStatus(x, st)
			}
			for _, in := range d.messages {
				out, err := a.handle(hctx, x, sink, in)
				if err != nil {
					a.log.Warn("whatsapp message not handled, asking for redelivery", "account", x.id, "message", in.EventID, "err", err)
					http.Error(w, "not handled, retry", http.StatusInternalServerError)
					return
				}
				if out != nil && !out.Duplicate {
					a.markRead(ctx, x, in.MessageID, out.RunID != "")
				}
			}
		}
		w.WriteHeader(http.StatusOK)
	})
}

// pick returns the account of a phone number id (the only account when
// the delivery names none).
func pick(accts []*acct, phoneNumberID string) *acct {
	for _, x := range accts {
		if x.cfg.PhoneNumberID == phoneNumberID {
			return x
		}
	}
	if phoneNumberID == "" && len(accts) == 1 {
		return accts[0]
	}
	return nil
}

// handle applies the access rules to one message and hands it on; a nil
// error means it may be acknowledged. It returns the sink's outcome (nil
// for a message dropped or answered with a pairing code).
func (a *Adapter) handle(ctx context.Context, x *acct, sink channels.Sink, in channels.Inbound) (*channels.Outcome, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	in.AccountID = x.id
	switch v, why := x.cfg.access().Decide(&in, func(s string) bool { return a.o.Paired != nil && a.o.Paired(x.id, s) }); v {
	case channels.Drop:
		a.log.Debug("whatsapp message dropped", "account", x.id, "chat", in.ChatID, "sender", in.SenderID, "reason", why)
		return nil, nil
	case channels.Pair:
		a.pairing(ctx, x, in)
		return nil, nil
	}
	out, err := sink.Handle(ctx, in)
	if err != nil {
		return nil, err
	}
	if !out.Duplicate {
		x.Received(time.Now())
	}
	return &out, nil
}

// pairing answers an unknown direct sender with a pairing code.
func (a *Adapter) pairing(ctx context.Context, x *acct, in channels.Inbound) {
	if a.o.Pair == nil {
		return
	}
	code, fresh, err := a.o.Pair(ctx, x.id, in.SenderID, in.SenderName)
	if err != nil || !fresh {
		if err != nil {
			a.log.Info("whatsapp pairing refused", "account", x.id, "sender", in.SenderID, "err", err)
		}
		return
	}
	if err := a.send(ctx, x, in.To, channels.PairingText("WhatsApp", Channel, in.SenderID, code), ""); err != nil {
		a.log.Warn("whatsapp pairing code not sent", "account", x.id, "err", err)
	}
}

// recordStatus remembers the last status of one of the bot's messages
// and logs a failure with Meta's reason.
func (a *Adapter) recordStatus(x *acct, st Status) {
	if st.ID == "" {
		return
	}
	x.stMu.Lock()
	if _, ok := x.statuses[st.ID]; !ok {
		x.stOrder = append(x.stOrder, st.ID)
		if len(x.stOrder) > maxStatuses {
			delete(x.statuses, x.stOrder[0])
			x.stOrder = x.stOrder[1:]
		}
	}
	x.statuses[st.ID] = st
	x.stMu.Unlock()
	if st.Status == "failed" {
		reason := ""
		for _, e := range st.Errors {
			reason += fmt.Sprintf("%d %s %s; ", e.Code, e.Title, e.Message)
		}
		a.log.Warn("whatsapp message failed", "account", x.id, "message", st.ID, "to", st.RecipientID, "reason", strings.TrimSpace(reason))
		return
	}
	a.log.Debug("whatsapp message status", "account", x.id, "message", st.ID, "status", st.Status)
}

// MessageStatus returns the last status callback of one of the bot's
// messages (by the id the send returned) on an account.
func (a *Adapter) MessageStatus(accountID, messageID string) (Status, bool) {
	x := a.account(accountID)
	if x == nil {
		return Status{}, false
	}
	x.stMu.Lock()
	defer x.stMu.Unlock()
	st, ok := x.statuses[messageID]
	return st, ok
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
		s := channels.AccountStatus{AccountID: x.id, Enabled: x.enabled(), Configured: x.problem == "",
			Mode: "webhook", BotUsername: x.cfg.PhoneNumberID}
		x.Fill(&s)
		out = append(out, s)
	}
	return out
}

var _ channels.Adapter = (*Adapter)(nil)
