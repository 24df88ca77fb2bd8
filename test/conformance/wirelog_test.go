package conformance

import (
	"encoding/json"
	"sync"
)

// wireEntry is one frame exchange of a conformance client: a request with
// its (first) response, or an event.
type wireEntry struct {
	method   string          // the request's method; "" for an event
	params   json.RawMessage // the request's params
	response json.RawMessage // the response frame, or the event frame
}

// wireLog records every WebSocket request the conformance clients make and
// every frame the gateway sends them, for the sweep against OpenClaw's own
// validators (openclaw_wire_test.go).
type wireLog struct {
	mu      sync.Mutex
	entries []wireEntry
}

// wire is the package's one log: every wsClient writes to it.
var wire wireLog

func (l *wireLog) request(method string, params any, response json.RawMessage) {
	p, err := json.Marshal(params)
	if err != nil {
		p = []byte("null")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, wireEntry{method: method, params: p, response: response})
}

func (l *wireLog) event(frame json.RawMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, wireEntry{response: frame})
}

// snapshot returns the entries recorded so far.
func (l *wireLog) snapshot() []wireEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]wireEntry(nil), l.entries...)
}
