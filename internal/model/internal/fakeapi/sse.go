package fakeapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// SSEReply is one canned streamed answer: Events are written in turn,
// each flushed at once, as `data: <event>` lines (an event that starts
// with "event:" is written as is, for APIs that name their events).
type SSEReply struct {
	Status int // default 200; an error status sends Body as JSON instead
	Body   string
	Events []string
	// Hold keeps the stream open after the events until the client goes.
	Hold bool
	// Cut drops the connection after the events, mid-stream.
	Cut bool
}

// SSE is a loopback server that streams SSEReply answers and records
// the requests it got.
type SSE struct {
	*httptest.Server
	replies []SSEReply

	mu   sync.Mutex
	reqs []Request
}

// NewSSE starts a streaming server that stops when the test ends; request
// i gets replies[i], the last reply repeating.
func NewSSE(t testing.TB, replies ...SSEReply) *SSE {
	t.Helper()
	if len(replies) == 0 {
		t.Fatal("fakeapi: no replies")
	}
	s := &SSE{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *SSE) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	_ = json.Unmarshal(raw, &req.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	rp := s.replies[min(n, len(s.replies)-1)]
	if rp.Status >= 400 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.Status)
		_, _ = io.WriteString(w, rp.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for _, ev := range rp.Events {
		if len(ev) > 6 && ev[:6] == "event:" {
			_, _ = io.WriteString(w, ev+"\n\n")
		} else {
			_, _ = io.WriteString(w, "data: "+ev+"\n\n")
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	switch {
	case rp.Cut:
		// Abort the response: the client sees the body end early.
		panic(http.ErrAbortHandler)
	case rp.Hold:
		<-r.Context().Done()
	}
}

// Requests returns the requests received so far.
func (s *SSE) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}
