package whatsapp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// A token Meta refuses shows in status and stops the probing; a send
// with it fails for good; the webhook still refuses unsigned posts.
func TestRefusedTokenShowsInStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Invalid OAuth access token.","type":"OAuthException","code":190}}`))
	}))
	defer srv.Close()
	a, err := New(Options{Raw: map[string]any{"accessToken": "bad", "phoneNumberId": "1", "appSecret": "s",
		"verifyToken": "v", "apiRoot": srv.URL, "webhookPort": 0}, Backoff: func(int) time.Duration { return time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background(), channels.SinkFunc(func(context.Context, channels.Inbound) (channels.Outcome, error) {
		t.Error("an unsigned post reached the sink")
		return channels.Outcome{}, nil
	})); err != nil {
		t.Fatal(err)
	}
	defer a.Stop(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(a.Status()[0].LastError, "code 190") {
		if time.Now().After(deadline) {
			t.Fatalf("status = %+v", a.Status()[0])
		}
		time.Sleep(5 * time.Millisecond)
	}
	err = a.Send(context.Background(), channels.Outbound{To: "whatsapp:+1555", Text: "hi", IdempotencyKey: "x"})
	if !errors.Is(err, outbox.ErrPermanent) {
		t.Fatalf("send with a refused token: %v", err)
	}
	resp, err := http.Post(a.WebhookURL("default"), "application/json", strings.NewReader(`{"entry":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unsigned post answered %d", resp.StatusCode)
	}
}

// An account without its Cloud API keys does not start and says why.
func TestMissingKeysShowInStatus(t *testing.T) {
	a, err := New(Options{Raw: map[string]any{"dmPolicy": "open"}})
	if err != nil {
		t.Fatal(err)
	}
	st := a.Status()[0]
	for _, k := range []string{"accessToken", "appSecret", "verifyToken", "phoneNumberId"} {
		if !strings.Contains(st.LastError, "channels.whatsapp."+k) {
			t.Errorf("status error %q does not name %s", st.LastError, k)
		}
	}
	if st.Configured {
		t.Error("configured without keys")
	}
	if err := a.Send(context.Background(), channels.Outbound{To: "whatsapp:+1555", Text: "x"}); err == nil {
		t.Error("sent without keys")
	}
}
