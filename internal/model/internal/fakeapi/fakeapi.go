// Package fakeapi is an httptest server that plays canned model API answers
// and records the requests it got, for the provider tests.
package fakeapi

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Reply is one canned answer.
type Reply struct {
	Status int               // default 200
	Header map[string]string // Content-Type defaults to application/json
	File   string            // a file under the test's testdata/ with the body
	Body   string            // the body when File is empty
	Stall  bool              // block until the client gives up or the test ends
	Cut    bool              // promise more body than is sent, then drop the connection
}

// Request is what the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   map[string]any // the JSON body decoded, nil if it was not an object
	Raw    []byte
}

// Server answers request i with replies[i]; the last reply repeats.
type Server struct {
	*httptest.Server
	t       testing.TB
	replies []Reply

	mu   sync.Mutex
	reqs []Request
}

// New starts a server that stops when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	if len(replies) == 0 {
		t.Fatal("fakeapi: no replies")
	}
	s := &Server{t: t, replies: replies}
	release := make(chan struct{})
	s.Server = httptest.NewServer(s.handler(release))
	t.Cleanup(s.Close)
	// Runs before s.Close (cleanups are LIFO), so stalled handlers return
	// and Close does not wait for them.
	t.Cleanup(func() { close(release) })
	return s
}

func (s *Server) handler(release <-chan struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
		_ = json.Unmarshal(raw, &req.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()

		rp := s.replies[min(n, len(s.replies)-1)]
		if rp.Stall {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		body := []byte(rp.Body)
		if rp.File != "" {
			var err error
			if body, err = os.ReadFile(filepath.Join("testdata", rp.File)); err != nil {
				s.t.Errorf("fakeapi: %v", err)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		for k, v := range rp.Header {
			w.Header().Set(k, v)
		}
		if rp.Cut {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)+100))
		}
		w.WriteHeader(cmp.Or(rp.Status, http.StatusOK))
		_, _ = w.Write(body)
	}
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// WaitForRequests waits until the server has received n requests, failing
// the test after a few seconds.
func (s *Server) WaitForRequests(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fakeapi: saw %d requests, want %d", len(s.Requests()), n)
		}
		<-time.After(time.Millisecond)
	}
}
