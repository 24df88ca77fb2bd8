package gateway

import (
	"context"
	"fmt"
	"github.com/switchboard-go/switchboard/internal/audit"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
)

// countingBody is a request body of n bytes that counts what is read.
type countingBody struct {
	left int64
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), b.left)
	for i := range p[:n] {
		p[i] = ' '
	}
	b.left -= n
	b.read.Add(n)
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// noEngine is an Engine no request of this test reaches: every body is
// refused before a handler calls it.
type noEngine struct{ Engine }

// Record drops the audit records of the requests that pass the token
// check (their token use).
func (noEngine) Record(context.Context, audit.Entry) error { return nil }

// requestFor is a request line matching a route pattern.
func requestFor(pattern string) (method, path string) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = http.MethodPost, pattern
	}
	switch path {
	case "/":
		method = http.MethodGet
	case "/.well-known/agent-card.json":
		method = http.MethodGet
	case "/a2a/":
		path = "/a2a/agents/main"
	case "/api/":
		path = "/api/nothing"
	}
	r := strings.NewReplacer("{key}", "main", "{id}", "r1", "{name}", api.ToolSessionsSend)
	return method, r.Replace(path)
}

// TestRouteBodyLimits: every route refuses a body over its own limit with
// 413 naming the limit — before reading a byte when the body's length is
// declared, and after reading at most the limit when it is not — so eight
// 24 MiB bodies cost the gateway what the routes accept, not 24 MiB each.
// Routes that take no body refuse any; the ones carrying a message are
// bounded by what the message limit allows, far below maxPayload.
func TestRouteBodyLimits(t *testing.T) {
	mcp := mcpserver.New(nil, mcpserver.Options{Version: "test"})
	t.Cleanup(func() { _ = mcp.Close(context.Background()) })
	s, err := New(Options{Engine: noEngine{}, MCP: mcp.HTTPHandler(nil),
		A2A: a2a.New(a2a.Options{Agents: func() []a2a.Agent { return []a2a.Agent{{ID: "main", Public: true}} },
			Principal: func(*http.Request) (api.Principal, bool) { return api.Operator(), true }})})
	if err != nil {
		t.Fatal(err)
	}
	routes := s.routeTable()
	if len(routes) < 30 {
		t.Fatalf("route table has %d routes", len(routes))
	}
	for _, rt := range routes {
		limit := min(rt.limit, s.opts.MaxPayload)
		if limit > textBody && rt.limit != s.spawnBody() {
			t.Errorf("%s: limit %d is above a message's (%d) without carrying attachments", rt.pattern, limit, textBody)
		}
		method, path := requestFor(rt.pattern)
		size := limit + 1<<20
		for _, declared := range []bool{true, false} {
			body := &countingBody{left: size}
			req := httptest.NewRequest(method, path, body)
			req.ContentLength = -1
			if declared {
				req.ContentLength = size
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			name := fmt.Sprintf("%s %s (declared %v, limit %d)", method, path, declared, limit)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("%s: %d %.200s, want 413", name, rec.Code, rec.Body.String())
				continue
			}
			if want := fmt.Sprintf("%d bytes", limit); !strings.Contains(rec.Body.String(), want) {
				t.Errorf("%s: %.200s does not name the limit (%s)", name, rec.Body.String(), want)
			}
			read, most := body.read.Load(), int64(0)
			if !declared {
				most = limit + 1
			}
			if read > most {
				t.Errorf("%s: %d bytes read, want at most %d", name, read, most)
			}
		}
	}
	if textBody >= DefaultMaxPayload/4 || s.spawnBody() >= DefaultMaxPayload {
		t.Errorf("a message route takes %d bytes, a spawn %d: not near what they accept (maxPayload %d)", textBody, s.spawnBody(), int64(DefaultMaxPayload))
	}
}
