package fakeapi

import (
	"io"
	"net/http"
	"sync"
)

// Stalled is a model API that never answers: every request blocks until
// its context ends. It is an in-process http.RoundTripper, not a socket,
// so inside a testing/synctest bubble the deadlines under test fire on the
// bubble's clock and tests of giving up do not depend on machine load.
type Stalled struct {
	mu   sync.Mutex
	reqs int
}

var _ http.RoundTripper = (*Stalled)(nil)

// RoundTrip reads the request, counts it and waits for the caller to give up.
func (s *Stalled) RoundTrip(r *http.Request) (*http.Response, error) {
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

// Requests returns how many requests reached the transport.
func (s *Stalled) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs
}
