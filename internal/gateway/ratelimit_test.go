package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// TestTokenRateLimit: a token past its bucket gets a retryable refusal
// naming the limit (HTTP 429 with Retry-After; WS retryable UNAVAILABLE)
// while another token, and the operator, go on unhindered.
func TestTokenRateLimit(t *testing.T) {
	e := newEnv(t, envOptions{token: "op", tokens: []config.TokenBinding{
		{Name: "greedy", Token: "greedy-token", Scopes: []string{"read"}},
		{Name: "polite", Token: "polite-token", Scopes: []string{"read"}},
	}, opts: func(o *gateway.Options) {
		o.Limits.RateLimit = config.RateLimitConfig{RequestsPerSecond: 0.001, Burst: 3}
	}})
	for i := range 3 {
		if code := e.doToken(t, "greedy-token", "GET", "/api/sessions", nil, nil); code != http.StatusOK {
			t.Fatalf("greedy request %d within the burst = %d", i, code)
		}
	}
	req, _ := http.NewRequest("GET", e.url+"/api/sessions", nil)
	req.Header.Set("Authorization", "Bearer greedy-token")
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	_, _ = io.Copy(&body, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(body.String(), `rate limit exceeded: token \"greedy\"`) || !strings.Contains(body.String(), "gateway.limits.rateLimit") {
		t.Errorf("greedy past its burst = %d Retry-After %q %s, want 429 naming the limit", resp.StatusCode, resp.Header.Get("Retry-After"), body.String())
	}
	for i := range 3 {
		if code := e.doToken(t, "polite-token", "GET", "/api/sessions", nil, nil); code != http.StatusOK {
			t.Errorf("polite request %d while greedy is limited = %d", i, code)
		}
	}
	for i := range 10 {
		if code := e.doToken(t, "op", "GET", "/api/sessions", nil, nil); code != http.StatusOK {
			t.Errorf("operator request %d = %d (the main token is not limited)", i, code)
		}
	}
	w, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": "greedy-token"}})
	res := w.call("sessions.list", map[string]any{})
	if res.OK || res.Error == nil || !res.Error.Retryable || !strings.Contains(res.Error.Message, "rate limit exceeded") {
		t.Errorf("greedy over WS = %s, want a retryable rate-limit error", res)
	}
}
