package openai

import (
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
)

// stalledProvider returns a provider whose requests go to st.
func stalledProvider(t *testing.T, st *fakeapi.Stalled, mod func(*Config)) *Provider {
	t.Helper()
	cfg := Config{
		BaseURL:    "http://model.test/v1",
		APIKey:     "sk-test-123",
		MaxRetries: 2,
		HTTPClient: &http.Client{Transport: st},
		Now:        func() time.Time { return testNow },
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
