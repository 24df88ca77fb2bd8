package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

const appSecret = "test-app-secret"

// relay injects a user message through crabline and posts the Cloud API
// payload to the webhook, signed with secret.
func relay(t *testing.T, c *crabline.Server, hook, secret string, msg map[string]any) (int, []byte) {
	t.Helper()
	return c.RelayWhatsApp(t, hook, signer(secret), msg)
}

func post(t *testing.T, hook, secret string, body []byte) int {
	t.Helper()
	return crabline.PostSigned(t, hook, signer(secret), body)
}

func signer(secret string) func([]byte) string {
	return func(b []byte) string { return Sign(secret, b) }
}

func TestAdapterAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "whatsapp")
	// The Graph API goes through a proxy that answers the first send of
	// "flaky" with a 503 and the first of "limit me" with a rate limit.
	target, _ := url.Parse(c.BaseURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	var flaky, limited atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		switch {
		case bytes.Contains(b, []byte("echo: flaky")) && flaky.Add(1) == 1:
			http.Error(w, `{"error":{"message":"Service temporarily unavailable","code":2}}`, http.StatusServiceUnavailable)
			return
		case bytes.Contains(b, []byte("echo: limit me")) && limited.Add(1) == 1:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"(#131056) (Business Account, Consumer Account) pair rate limit hit","code":131056}}`))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	const (
		ada     = "15550001001"
		bob     = "15550001002"
		verifyT = "verify-me"
	)
	block := map[string]any{
		"accessToken":   map[string]any{"source": "env", "provider": "default", "id": "WA_TOKEN"},
		"phoneNumberId": c.PhoneNumberID, "appSecret": appSecret, "verifyToken": verifyT,
		"apiRoot": proxy.URL + "/" + c.GraphVersion, "webhookPort": 0,
		"dmPolicy": "allowlist", "allowFrom": []any{"+" + ada},
		"mediaMaxMb": 50,
	}
	a, err := New(Options{Raw: block, Getenv: func(k string) string {
		if k == "WA_TOKEN" {
			return c.AccessToken
		}
		return ""
	}, Backoff: func(int) time.Duration { return 50 * time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	hook := a.WebhookURL(channels.DefaultAccountID)
	if hook == "" {
		t.Fatal("no webhook listener")
	}
	crabline.WaitFor(t, "the token check", func() bool { return a.Status()[0].Connected })
	dm := func(from, text string) map[string]any {
		return map[string]any{"chatJid": from + "@s.whatsapp.net", "senderJid": from + "@s.whatsapp.net", "pushName": "Ada", "text": text}
	}

	t.Run("the verification handshake echoes the challenge for the verify token only", func(t *testing.T) {
		for token, want := range map[string]int{verifyT: http.StatusOK, "wrong": http.StatusForbidden} {
			resp, err := http.Get(hook + "?hub.mode=subscribe&hub.verify_token=" + token + "&hub.challenge=1158201444")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want || (want == http.StatusOK && string(b) != "1158201444") {
				t.Fatalf("token %q: %d %q", token, resp.StatusCode, b)
			}
		}
	})
	t.Run("direct message answered in the direct chat", func(t *testing.T) {
		if st, _ := relay(t, c, hook, appSecret, dm(ada, "hello")); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
		if n := c.CloudSent(t, ada, "echo: hello"); n != 1 {
			t.Fatalf("%d replies, want 1 (the reply is sent before the webhook answers)", n)
		}
		in, _ := sink.Inbound("hello")
		if in.SenderID != "+"+ada || in.To != "whatsapp:+"+ada || in.ChatType != channels.ChatDirect || in.SenderName != "Ada" {
			t.Fatalf("inbound = %+v", in)
		}
		cfg := &config.Config{}
		cfg.Session.DMScope = channels.DMScopePerChannelPeer
		r := channels.Resolve(cfg, in)
		if r.SessionKey != "agent:main:whatsapp:direct:+"+ada || len(r.Alternates) != 2 ||
			r.Alternates[0] != "agent:main:whatsapp:direct:"+ada+"@s.whatsapp.net" {
			t.Fatalf("route = %+v", r)
		}
	})
	t.Run("a wrong signature is refused with 401 and changes nothing", func(t *testing.T) {
		before := sink.Count()
		if st, _ := relay(t, c, hook, "not-the-secret", dm(ada, "forged")); st != http.StatusUnauthorized {
			t.Fatalf("webhook answered %d, want 401", st)
		}
		if sink.Count() != before || c.CloudSent(t, ada, "echo: forged") != 0 {
			t.Fatal("a forged delivery reached the sink")
		}
	})
	t.Run("a replayed delivery answers once", func(t *testing.T) {
		st, payload := relay(t, c, hook, appSecret, dm(ada, "once"))
		if st != http.StatusOK || post(t, hook, appSecret, payload) != http.StatusOK {
			t.Fatal("webhook refused a delivery")
		}
		if n := c.CloudSent(t, ada, "echo: once"); n != 1 {
			t.Fatalf("%d replies, want 1", n)
		}
	})
	t.Run("a sender outside allowFrom is dropped", func(t *testing.T) {
		if st, _ := relay(t, c, hook, appSecret, dm(bob, "let me in")); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
		if _, n := sink.Inbound("let me in"); n > 0 || len(c.CloudTexts(t, bob)) != 0 {
			t.Fatal("a sender outside allowFrom got through")
		}
	})
	t.Run("status callbacks are recorded", func(t *testing.T) {
		body := []byte(`{"object":"whatsapp_business_account","entry":[{"id":"W","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"phone_number_id":"` +
			c.PhoneNumberID + `"},"statuses":[{"id":"wamid.OUT1","status":"read","timestamp":"1","recipient_id":"` + ada + `"}]}}]}]}`)
		if st := post(t, hook, appSecret, body); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
		if st, ok := a.MessageStatus("default", "wamid.OUT1"); !ok || st.Status != "read" {
			t.Fatalf("status = %+v %v", st, ok)
		}
	})
	t.Run("the API down, then back: retried by the outbox, sent once", func(t *testing.T) {
		out := channels.Outbound{To: "whatsapp:+" + ada, Text: "echo: flaky", IdempotencyKey: "f1"}
		if err := a.Send(context.Background(), out); err == nil || errors.Is(err, outbox.ErrPermanent) {
			t.Fatalf("send through a failing API: %v", err)
		}
		if err := a.Send(context.Background(), out); err != nil {
			t.Fatal(err)
		}
		if n := c.CloudSent(t, ada, "echo: flaky"); n != 1 {
			t.Fatalf("%d sends, want 1", n)
		}
	})
	t.Run("a rate limit asks the outbox to wait", func(t *testing.T) {
		err := a.Send(context.Background(), channels.Outbound{To: "whatsapp:+" + ada, Text: "echo: limit me", IdempotencyKey: "r1"})
		var ra *channels.RetryAfterError
		if !errors.As(err, &ra) || ra.After != pairLimitWait {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("markdown becomes WhatsApp's formatting; a long text is split", func(t *testing.T) {
		long := "**bold** " + strings.Repeat("word ", 1000)
		if err := a.Send(context.Background(), channels.Outbound{To: "whatsapp:+" + bob, Text: long, IdempotencyKey: "l1"}); err != nil {
			t.Fatal(err)
		}
		got := c.CloudTexts(t, bob)
		if len(got) != 2 || !strings.HasPrefix(got[0], "*bold* word") || len([]rune(got[0])) > DefaultTextLimit {
			t.Fatalf("pieces = %d, first starts %q", len(got), got[0][:12])
		}
	})
	st := a.Status()[0]
	if !st.Running || st.Received == 0 || st.Delivered == 0 || st.Retried == 0 {
		t.Fatalf("status = %+v", st)
	}
}
