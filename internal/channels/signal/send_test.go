package signal

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// How the daemon's refusals reach the outbox: a rate limit (signal-cli's
// error -5, or an HTTP 429) waits, the daemon down is retried with
// backoff, another JSON-RPC error fails the item for good.
func TestSendRefusals(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		body      string
		header    string
		wait      time.Duration
		permanent bool
	}{
		{"rate limit", 200, `{"jsonrpc":"2.0","id":"x","error":{"code":-5,"message":"Failed to send message due to rate limiting"}}`, "", rateLimitWait, false},
		{"429 with Retry-After", 429, ``, "3", 3 * time.Second, false},
		{"daemon down", 503, `daemon restarting`, "", 0, false},
		{"unregistered recipient", 200, `{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"Unregistered user"}}`, "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			daemon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if !strings.Contains(string(b), `"method":"send"`) {
					t.Errorf("call %s", b)
				}
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer daemon.Close()
			a, err := New(Options{Raw: map[string]any{"account": "+15550000000", "httpUrl": daemon.URL}})
			if err != nil {
				t.Fatal(err)
			}
			err = a.Send(context.Background(), channels.Outbound{To: "signal:+15550001001", Text: "hello", IdempotencyKey: "k1"})
			if err == nil {
				t.Fatal("a refused send reported success")
			}
			var ra *channels.RetryAfterError
			if got := errors.As(err, &ra); got != (tc.wait > 0) || (got && ra.After != tc.wait) {
				t.Errorf("retry after: %v", err)
			}
			if errors.Is(err, outbox.ErrPermanent) != tc.permanent {
				t.Errorf("%v: permanent = %v, want %v", err, !tc.permanent, tc.permanent)
			}
			s := a.Status()[0]
			if tc.permanent && s.Failed != 1 || !tc.permanent && s.Retried != 1 {
				t.Errorf("counters %+v", s)
			}
		})
	}
}
