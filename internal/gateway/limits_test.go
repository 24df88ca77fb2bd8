package gateway_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
)

// holdConn opens a keep-alive connection, makes one request on it and
// keeps it open (idle). It fails the test unless the answer is 200.
func (e *env) holdConn(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(e.url, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("healthz on a held connection: %s", resp.Status)
	}
	return c
}

// freshGet makes a request on a new connection.
func (e *env) freshGet(path string) (int, string, error) {
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := hc.Get(e.url + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestConnectionCap: idle keep-alive connections cannot exhaust the
// gateway: past gateway.limits.maxConnections a new connection is answered
// 503 "too many connections" at once, and when the idle ones go, a chat
// works again.
func TestConnectionCap(t *testing.T) {
	const max = 4
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) { o.Limits = config.GatewayLimits{MaxConnections: max} }})
	var held []net.Conn
	for range max {
		held = append(held, e.holdConn(t))
	}
	for range 3 {
		st, body, err := e.freshGet("/api/sessions")
		if err != nil {
			t.Fatalf("over the cap: %v (want a 503 answer, not a failure)", err)
		}
		if st != 503 || !strings.Contains(body, "too many connections") || !strings.Contains(body, "requestId") {
			t.Fatalf("over the cap: %d %s", st, body)
		}
	}
	for _, c := range held {
		c.Close()
	}
	// The server sees the closes asynchronously: poll with a deadline.
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, body, err := e.freshGet("/healthz")
		if err == nil && st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connections were not released: %d %s %v", st, body, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var out struct {
		Run struct{ Status, Reply string }
	}
	if st := e.do(t, "POST", "/api/sessions/main/chat?wait=10s", map[string]any{"message": "hello"}, &out); st != 200 || out.Run.Status != "ok" {
		t.Fatalf("chat after the idle connections went: %d %+v", st, out)
	}
}

// TestConnectionCapPerAddress: a per-address cap, when configured, names
// the address.
func TestConnectionCapPerAddress(t *testing.T) {
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{MaxConnections: 100, MaxConnectionsPerAddress: 2}
	}})
	e.holdConn(t)
	e.holdConn(t)
	st, body, err := e.freshGet("/healthz")
	if err != nil || st != 503 || !strings.Contains(body, "too many connections from 127.0.0.1") {
		t.Fatalf("third connection from one address: %d %s %v", st, body, err)
	}
}

// TestServerTimeouts: a client that never finishes its headers, an idle
// keep-alive connection and a body that never arrives are all cut off.
func TestServerTimeouts(t *testing.T) {
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{ReadHeaderTimeoutSeconds: 1, IdleTimeoutSeconds: 1, ReadTimeoutSeconds: 1}
	}})
	addr := strings.TrimPrefix(e.url, "http://")
	closedWithin := func(t *testing.T, c net.Conn, d time.Duration) string {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(d))
		b, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("connection still open after %v: %v", d, err)
		}
		return string(b)
	}
	t.Run("headers", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
		closedWithin(t, c, 5*time.Second)
	})
	t.Run("idle", func(t *testing.T) {
		c := e.holdConn(t)
		closedWithin(t, c, 5*time.Second)
	})
	t.Run("body", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = io.WriteString(c, "POST /api/sessions/main/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"message\":")
		got := closedWithin(t, c, 5*time.Second)
		if !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, "not received in time") {
			t.Fatalf("slow body answered %q", got)
		}
	})
	if n := e.runCount(t); n != 0 {
		t.Fatalf("%d runs after cut-off requests", n)
	}
}

// TestOversizedBodyIs413: a body over maxPayload is 413, not 400.
func TestOversizedBodyIs413(t *testing.T) {
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) { o.Limits = config.GatewayLimits{MaxPayload: 1024, MaxBufferedBytes: 4096} }})
	big := `{"message":"` + strings.Repeat("x", 2000) + `"}`
	for _, path := range []string{"/api/sessions/main/chat", "/api/spawn", "/api/tools/sessions_list", "/api/sessions/main/send"} {
		st, _, body := e.rawDo(t, "POST", path, big, map[string]string{"Content-Type": "application/json"})
		if st != 413 || !strings.Contains(body, "too large (max 1024 bytes)") {
			t.Errorf("POST %s: %d %s", path, st, body)
		}
	}
}

// TestMCPBodyIsBoundByMaxPayload: gateway.limits.maxPayload bounds /mcp as
// it bounds /api (docs/gateway.md), whatever the MCP handler's own limit;
// before, /mcp took bodies up to the handler's fixed 16 MiB.
func TestMCPBodyIsBoundByMaxPayload(t *testing.T) {
	var mcp *mcpserver.Server
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{MaxPayload: 1024, MaxBufferedBytes: 4096}
		mcp = mcpserver.New(o.Engine, mcpserver.Options{Version: "test"})
		o.MCP = mcp.HTTPHandler(nil)
	}})
	t.Cleanup(func() { _ = mcp.Close(t.Context()) })
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sessions_list","arguments":` + args + `}}`
	}
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

	if st, _, body := e.rawDo(t, "POST", "/mcp", call(`{}`), hdr); st != 200 {
		t.Fatalf("a small /mcp call: %d %s", st, body)
	}
	big := call(`{"padding":"` + strings.Repeat("x", 2000) + `"}`)
	if st, _, body := e.rawDo(t, "POST", "/mcp", big, hdr); st != 413 || !strings.Contains(body, "too large (max 1024 bytes)") {
		t.Errorf("POST /mcp with Content-Length past maxPayload: %d %s", st, body)
	}
	// Without a Content-Length the body is cut off while it is read.
	req, err := http.NewRequest("POST", e.url+"/mcp", io.MultiReader(strings.NewReader(big)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 413 || !strings.Contains(string(b), "1024 bytes") {
		t.Errorf("chunked POST /mcp past maxPayload: %d %s", resp.StatusCode, b)
	}
}
