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
)

// Reply is one canned answer.
type Reply struct {
	Status int               // default 200
	Header map[string]string // Content-Type defaults to application/json
	File   string            // a file under the test's testdata/ with the body
	Body   string            // the body when File is empty
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
	s.Server = httptest.NewServer(s.handler())
	t.Cleanup(s.Close)
	return s
}

func (s *Server) handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
		_ = json.Unmarshal(raw, &req.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()

		rp := s.replies[min(n, len(s.replies)-1)]
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
