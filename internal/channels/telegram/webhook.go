package telegram

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/go-telegram/bot"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// call posts a Bot API method with a JSON body and returns the raw
// answer (getUpdates, which the adapter owns).
func (x *acct) call(ctx context.Context, method string, body any, timeout time.Duration) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.apiRoot+"/bot"+x.token+"/"+method, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: bad apiRoot", method)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := x.http.Do(req)
	if err != nil {
		// The URL holds the token: name the method only.
		if ue, ok := err.(interface{ Unwrap() error }); ok {
			err = ue.Unwrap()
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return raw, nil
}

// Defaults of webhook mode (OpenClaw's).
const (
	defaultWebhookHost = "127.0.0.1"
	defaultWebhookPort = 8787
	defaultWebhookPath = "/telegram-webhook"
	// secretHeader carries webhookSecret on every update Telegram posts.
	secretHeader = "X-Telegram-Bot-Api-Secret-Token"
)

// startWebhook serves the account's webhook listener and registers
// webhookUrl (with webhookSecret) with Telegram.
func (a *Adapter) startWebhook(ctx context.Context, x *acct, sink channels.Sink) error {
	secret := ""
	if x.cfg.WebhookSecret != nil {
		s, err := resolveSecret(x.cfg.WebhookSecret, a.o.Getenv)
		if err != nil {
			return fmt.Errorf("webhookSecret: %w", err)
		}
		secret = s
	}
	if secret == "" {
		return fmt.Errorf("webhookUrl needs webhookSecret")
	}
	port := defaultWebhookPort
	if x.cfg.WebhookPort != nil {
		port = *x.cfg.WebhookPort
	}
	addr := net.JoinHostPort(orDefault(x.cfg.WebhookHost, defaultWebhookHost), strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("webhook listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(orDefault(x.cfg.WebhookPath, defaultWebhookPath), a.webhookHandler(ctx, x, sink, secret))
	x.webhook = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	a.wg.Add(2)
	go func() {
		defer a.wg.Done()
		if err := x.webhook.Serve(ln); err != nil && err != http.ErrServerClosed {
			a.log.Error("telegram webhook listener", "account", x.id, "err", err)
		}
	}()
	go func() {
		defer a.wg.Done()
		if !a.identify(ctx, x) {
			return
		}
		for attempt := 1; ctx.Err() == nil; attempt++ {
			_, err := x.bot.SetWebhook(ctx, &bot.SetWebhookParams{URL: x.cfg.WebhookURL, SecretToken: secret,
				AllowedUpdates: []string{"message"}})
			if err == nil {
				x.running.Store(true)
				a.log.Info("telegram webhook registered", "account", x.id, "listen", ln.Addr().String())
				return
			}
			x.setError(fmt.Errorf("setWebhook: %w", err))
			if !sleep(ctx, time.Duration(min(attempt, 6))*time.Second) {
				return
			}
		}
	}()
	return nil
}

// webhookHandler checks the secret, then handles the update and answers
// 200 only once its turn is durable (500 makes Telegram redeliver it).
// A wrong or missing secret gets 401 and changes nothing.
func (a *Adapter) webhookHandler(ctx context.Context, x *acct, sink channels.Sink, secret string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(secretHeader)), []byte(secret)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.ContentLength > maxUpdateBytes {
			// Refused before a byte is read (no update is this large).
			http.Error(w, tooLarge, http.StatusRequestEntityTooLarge)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, tooLarge, http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		u, err := decodeUpdate(body)
		if err != nil {
			// A body that never decodes would be redelivered forever.
			a.log.Warn("telegram webhook: bad update", "account", x.id, "err", err)
			w.WriteHeader(http.StatusOK)
			return
		}
		next, _ := x.offset.load()
		if u.ID < next {
			w.WriteHeader(http.StatusOK) // handled before
			return
		}
		hctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if err := a.handle(hctx, x, sink, u); err != nil {
			a.log.Warn("telegram webhook update not handled", "account", x.id, "update", u.ID, "err", err)
			http.Error(w, "not handled, retry", http.StatusInternalServerError)
			return
		}
		if err := x.offset.store(u.ID + 1); err != nil {
			a.log.Error("telegram offset not saved", "account", x.id, "err", err)
		}
		w.WriteHeader(http.StatusOK)
	})
}
