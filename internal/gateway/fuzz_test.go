package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// protocolCloses are the close codes a connection may end with when a
// request is refused at the frame level.
var protocolCloses = map[websocket.StatusCode]bool{
	websocket.StatusProtocolError:           true,
	websocket.StatusUnsupportedData:         true,
	websocket.StatusInvalidFramePayloadData: true,
	websocket.StatusPolicyViolation:         true,
	websocket.StatusMessageTooBig:           true,
}

// answerTo waits for the response to request id or the end of the
// connection; events and other responses are skipped. It fails on a
// close that is not a protocol refusal and when neither comes in time.
func answerTo(t *testing.T, w *wsClient, id string) (frame, bool) {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case f := <-w.frames:
			if f.Type == "res" && f.ID == id {
				return f, true
			}
		case <-w.done:
			for f := range drain(w.frames) {
				if f.Type == "res" && f.ID == id {
					return f, true
				}
			}
			var ce websocket.CloseError
			if !errors.As(w.err, &ce) || !protocolCloses[ce.Code] {
				t.Fatalf("connection ended without a protocol close: %v", w.err)
			}
			return frame{}, false
		case <-deadline.C:
			t.Fatalf("no answer to request %s and no close within 15s", id)
		}
	}
}

// FuzzWSRequest sends requests with arbitrary params to every method on
// one connected client: the gateway never panics, and answers each
// request or closes with a protocol code. The frame itself (and the
// first frame of a connection) is fuzzed without a socket by FuzzFrame;
// here the connection stays open across inputs, so each input costs one
// round trip.
func FuzzWSRequest(f *testing.F) {
	e := newEnv(f, envOptions{opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{MaxPayload: 256 << 10, MaxBufferedBytes: 512 << 10}
	}})
	methods := append(gateway.MethodNames(), "connect", "no.such")
	index := func(name string) uint8 { return uint8(slices.Index(methods, name)) }
	for _, s := range []struct{ method, params string }{
		{"sessions.list", `{"limit":5}`},
		{"sessions.list", `{"limit":-1,"kinds":["main"]}`},
		{"chat.send", `{"sessionKey":"main","message":"hi","idempotencyKey":"k"}`},
		{"agents.list", `null`},
		{"tools.invoke", `{"name":"sessions_list","args":{"limit":-1}}`},
		{"sessions.patch", `{"key":"main","label":"\u0000"}`},
		{"sessions.patch", `{"key":"main","label":"a\u202eb"}`},
		{"agent", `{"message":"x","idempotencyKey":"a"}`},
		{"sessions.spawn", `{"task":"t","attachments":[{"name":"../x","content":"y"}]}`},
		{"sessions.spawn", `{"task":"t","attachments":[{"name":"a/../../b","content":"!!","encoding":"base64"}]}`},
		{"agent.wait", `{"runId":"nope","timeoutMs":1e308}`},
		{"chat.history", `{"sessionKey":"agent:main:main","limit":99999999999999999999}`},
		{"connect", `{"minProtocol":3,"maxProtocol":4}`},
		{"no.such", `[]`},
		{"sessions.search", `{"query":"\"unterminated"}`},
	} {
		f.Add(index(s.method), []byte(s.params))
	}
	// One connection serves every input; it lives as long as the target.
	w, _ := e.connect(f, nil)
	seq := 0
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		if isDone(w) {
			// A connection a refusal closed is replaced by one that ends
			// with this input.
			w, _ = e.connect(t, nil)
		}
		seq++
		id := fmt.Sprintf("f%d", seq)
		p := json.RawMessage(params)
		if !json.Valid(params) {
			p, _ = json.Marshal(string(params))
		}
		req, err := json.Marshal(map[string]any{"type": "req", "id": id, "method": methods[int(m)%len(methods)], "params": p})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.c.Write(context.Background(), websocket.MessageText, req); err != nil {
			return
		}
		answerTo(t, w, id)
	})
}

// isDone reports whether a client's connection has ended.
func isDone(w *wsClient) bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// FuzzHTTPBody posts arbitrary bodies to the API routes that take one.
// The gateway never panics and never answers 5xx: bad input is a 4xx.
func FuzzHTTPBody(f *testing.F) {
	e := newEnv(f, envOptions{rules: []config.ScriptRule{slowRule(50)}, opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{MaxPayload: 256 << 10, MaxBufferedBytes: 512 << 10}
	}})
	routes := []string{"/api/sessions/main/chat", "/api/spawn", "/api/tools/sessions_send", "/api/tools/sessions_list",
		"/api/tools/sessions_history", "/api/tools/sessions_spawn", "/api/tools/agents_list", "/api/tools/nope",
		"/api/sessions/agent:main:fuzz/chat", "/api/sessions/%00/chat"}
	seeds := []string{`{"message":"hello"}`, `{"task":"do it","label":"l"}`, `{"sessionKey":"main","message":"x","timeoutSeconds":0}`,
		`{"limit":-5,"kinds":["main"]}`, `{"sessionKey":"main","limit":1e308}`, `{"task":"t","attachments":[{"name":"a\u202e.txt","content":"eA==","encoding":"base64"}]}`,
		`{}`, ``, `null`, `[]`, `"str"`, `{"message":"\u0000"}`, `{"as":5}`, `{"task":"x","as":"agent:main:main"}`,
		`{"message":"hi","idempotencyKey":"` + strings.Repeat("k", 300) + `"}`, `{"message":"hi","timeoutSeconds":-1}`}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	f.Cleanup(hc.CloseIdleConnections)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := routes[int(route)%len(routes)]
		req, err := http.NewRequest("POST", e.url+path, strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, resp.StatusCode, b)
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Fatal(fmt.Sprintf("POST %s: no X-Request-Id", path))
		}
	})
}
