package openai

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// stalledTransport is a model API that never answers: every request blocks
// until its context ends. It is in-process, unlike fakeapi's Stall reply,
// so inside a testing/synctest bubble the deadlines under test fire on the
// bubble's clock and the tests do not depend on machine load.
type stalledTransport struct {
	mu   sync.Mutex
	reqs int
}

// RoundTrip reads the request, counts it and waits for the caller to give up.
func (s *stalledTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	s.mu.Lock()
	s.reqs++
	s.mu.Unlock()
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// requests returns how many requests reached the transport.
func (s *stalledTransport) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs
}

// stalledProvider returns a provider whose requests go to st.
func stalledProvider(t *testing.T, st *stalledTransport, mod func(*Config)) *Provider {
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
