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
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// Channel is the channel name.
const Channel = "whatsapp"

// maxStatuses bounds the remembered message statuses per account.
const maxStatuses = 10000

// Options build an Adapter.
type Options = channels.ProviderOptions

// Adapter is the WhatsApp channel.
type Adapter struct {
	p        *channels.Provider
	accounts []*acct
	hooks    channels.Webhooks[*acct]
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

// AccountID is the account's id.
func (x *acct) AccountID() string { return x.id }

// Enabled reports whether the account runs.
func (x *acct) Enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// New builds the adapter of a `channels.whatsapp` block; it reaches no
// network until Start.
func New(o Options) (*Adapter, error) {
	a := &Adapter{p: channels.NewProvider(Channel, "WhatsApp", o)}
	accts, err := parse(a.p.O.Raw, a.p.O.Getenv)
	if err != nil {
		return nil, err
	}
	a.p.WarnNoEffect(effectKeys)
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

// Start serves the webhook of every enabled, configured account and
// checks each access token against the Graph API.
func (a *Adapter) Start(ctx context.Context, sink channels.Sink) error {
	ctx, err := a.p.Begin(ctx)
	if err != nil {
		return err
	}
	for _, x := range a.accounts {
		if !x.Enabled() {
			continue
		}
		if x.problem != "" {
			a.p.Log.Error("whatsapp account not started", "account", x.id, "err", x.problem)
			continue
		}
		a.hooks.Add(x.webhookAddr, x.hookPath, x.id, &x.Counters, x)
		x.Started(time.Now())
		a.p.Go(func() {
			// Reading the phone number shows a refused token or an
			// unreachable API.
			a.p.Probe(ctx, &x.Counters, x.id, func(ctx context.Context) error {
				return a.graph(ctx, x, http.MethodGet, "/"+x.cfg.PhoneNumberID, nil, nil)
			})
		})
	}
	a.hooks.Serve(a.p, func(accts []*acct) http.Handler { return a.handler(ctx, accts, sink) })
	return nil
}

// WebhookURL is the local URL an account's webhook listens at (after
// Start), "" when it does not listen.
func (a *Adapter) WebhookURL(accountID string) string { return a.hooks.URL(accountID) }

// Stop closes the webhook listeners and waits for the adapter's
// goroutines.
func (a *Adapter) Stop(ctx context.Context) error { return a.p.End(ctx, a.hooks.Shutdown) }

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
		body, ok := channels.ReadDelivery(w, r)
		if !ok {
			return
		}
		var signed []*acct
		for _, x := range accts {
			if validSignature(x.appSecret, body, r.Header.Get(signatureHeader)) {
				signed = append(signed, x)
			}
		}
		if len(signed) == 0 {
			a.p.Log.Warn("whatsapp webhook: delivery with a wrong signature refused", "remote", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		ds, err := decodePayload(body)
		if err != nil {
			// A body that never decodes would be delivered again forever.
			a.p.Log.Warn("whatsapp webhook: delivery does not decode", "err", err)
			w.WriteHeader(http.StatusOK)
			return
		}
		hctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		for _, d := range ds {
			x := pick(signed, d.phoneNumberID)
			if x == nil {
				a.p.Log.Warn("whatsapp webhook: delivery for an unknown phone number", "phoneNumberId", d.phoneNumberID)
				continue
			}
			for _, st := range d.statuses {
				a.recordStatus(x, st)
			}
			for _, in := range d.messages {
				out, err := a.handle(hctx, x, sink, in.Inbound, in.media)
				if err != nil {
					a.p.Log.Warn("whatsapp message not handled, asking for redelivery", "account", x.id, "message", in.EventID, "err", err)
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

// handle applies the access rules to one message, downloads the file of
// one that passes and hands it on; a nil error means it may be
// acknowledged. It returns the sink's outcome (nil for a message dropped
// or answered with a pairing code).
func (a *Adapter) handle(ctx context.Context, x *acct, sink channels.Sink, in channels.Inbound, ref *mediaRef) (*channels.Outcome, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	in.AccountID = x.id
	if !a.p.Admit(ctx, x.cfg.access(), x.id, &in, func(ctx context.Context, to, text string) error {
		return a.send(ctx, x, to, text, "")
	}) {
		return nil, nil
	}
	if err := a.fetchMedia(ctx, x, ref, &in); err != nil {
		return nil, err
	}
	out, err := channels.HandleCounted(ctx, sink, &x.Counters, in)
	if err != nil {
		return nil, err
	}
	return &out, nil
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
		a.p.Log.Warn("whatsapp message failed", "account", x.id, "message", st.ID, "to", st.RecipientID, "reason", strings.TrimSpace(reason))
		return
	}
	a.p.Log.Debug("whatsapp message status", "account", x.id, "message", st.ID, "status", st.Status)
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
// default), nil for none.
func (a *Adapter) account(id string) *acct {
	x, _ := channels.FindAccount(a.accounts, id)
	return x
}

// Status reports each account.
func (a *Adapter) Status() []channels.AccountStatus {
	out := make([]channels.AccountStatus, 0, len(a.accounts))
	for _, x := range a.accounts {
		s := channels.AccountStatus{AccountID: x.id, Enabled: x.Enabled(), Configured: x.problem == "",
			Mode: "webhook", BotUsername: x.cfg.PhoneNumberID}
		x.Fill(&s)
		out = append(out, s)
	}
	return out
}

var _ channels.Adapter = (*Adapter)(nil)
