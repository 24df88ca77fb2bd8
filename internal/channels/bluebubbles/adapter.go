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
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// Channel is the channel name: the config key, the session key segment
// and a row's `channel`, as OpenClaw named it.
const Channel = "bluebubbles"

// Options build an Adapter.
type Options = channels.ProviderOptions

// Adapter is the BlueBubbles channel.
type Adapter struct {
	p        *channels.Provider
	accounts []*acct
	hooks    channels.Webhooks[*acct]
}

// acct is one BlueBubbles server at run time.
type acct struct {
	account
	channels.Counters
	mu sync.Mutex // serializes message handling
}

// AccountID is the account's id.
func (x *acct) AccountID() string { return x.id }

// Enabled reports whether the account runs.
func (x *acct) Enabled() bool { return x.cfg.Enabled == nil || *x.cfg.Enabled }

// New builds the adapter of a `channels.bluebubbles` block; it reaches no
// network until Start.
func New(o Options) (*Adapter, error) {
	a := &Adapter{p: channels.NewProvider(Channel, "iMessage", o)}
	accts, err := parse(a.p.O.Raw, a.p.O.Getenv)
	if err != nil {
		return nil, err
	}
	a.p.WarnNoEffect(effectKeys)
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

// Start serves the webhook of every enabled, configured account and
// pings each server.
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
			a.p.Log.Error("bluebubbles account not started", "account", x.id, "err", x.problem)
			continue
		}
		a.hooks.Add(x.webhookAddr, x.hookPath, x.id, &x.Counters, x)
		x.Started(time.Now())
		a.p.Go(func() {
			// GET /api/v1/ping shows a refused password or a server down.
			a.p.Probe(ctx, &x.Counters, x.id, func(ctx context.Context) error {
				return a.rest(ctx, x, http.MethodGet, "/api/v1/ping", nil)
			})
		})
	}
	a.hooks.Serve(a.p, func(accts []*acct) http.Handler { return a.handler(ctx, accts, sink) })
	return nil
}

// WebhookURL is the local URL an account's webhook listens at (after
// Start, without the password), "" when it does not listen.
func (a *Adapter) WebhookURL(accountID string) string { return a.hooks.URL(accountID) }

// Stop closes the webhook listeners and waits for the adapter's
// goroutines.
func (a *Adapter) Stop(ctx context.Context) error { return a.p.End(ctx, a.hooks.Shutdown) }

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
			a.p.Log.Warn("bluebubbles webhook: delivery with a wrong password refused", "remote", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, ok := channels.ReadDelivery(w, r)
		if !ok {
			return
		}
		in, atts, err := decodeEvent(x.id, body)
		if err != nil {
			if !errors.Is(err, errIgnored) {
				a.p.Log.Warn("bluebubbles webhook: delivery not understood", "account", x.id, "err", err)
			}
			w.WriteHeader(http.StatusOK)
			return
		}
		hctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		runID, err := a.handle(hctx, x, sink, in, atts)
		if err != nil {
			a.p.Log.Warn("bluebubbles message not handled, asking for redelivery", "account", x.id, "message", in.EventID, "err", err)
			http.Error(w, "not handled, retry", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
		a.typing(ctx, x, sink, in.To, runID)
	})
}

// handle applies the access rules to a message, downloads the
// attachments of one that passes and hands it on; a nil error means it
// may be acknowledged. It returns the run the message started, if any.
func (a *Adapter) handle(ctx context.Context, x *acct, sink channels.Sink, in channels.Inbound, atts []attachment) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if name := strings.TrimSpace(x.cfg.Name); name != "" && strings.Contains(strings.ToLower(in.Text), "@"+strings.ToLower(name)) {
		in.Mentioned = true
	}
	if !a.p.Admit(ctx, x.cfg.access(), x.id, &in, func(ctx context.Context, to, text string) error {
		return a.send(ctx, x, to, text, "")
	}) {
		return "", nil
	}
	if err := a.fetchMedia(ctx, x, atts, &in); err != nil {
		return "", err
	}
	out, err := channels.HandleCounted(ctx, sink, &x.Counters, in)
	if err != nil || out.Duplicate {
		return "", err
	}
	return out.RunID, nil
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
			Configured: x.problem == "", Mode: "webhook"}
		x.Fill(&s)
		out = append(out, s)
	}
	return out
}

var _ channels.Adapter = (*Adapter)(nil)
