package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// protocolCloses are the close codes a malformed frame may end a
// connection with.
var protocolCloses = map[websocket.StatusCode]bool{
	websocket.StatusProtocolError:           true,
	websocket.StatusUnsupportedData:         true,
	websocket.StatusInvalidFramePayloadData: true,
	websocket.StatusPolicyViolation:         true,
	websocket.StatusMessageTooBig:           true,
}

// answerOrClose waits for the next response frame or the end of the
// connection; events are skipped. It fails on a close that is not a
// protocol refusal and when neither comes in time.
func answerOrClose(t *testing.T, w *wsClient) (frame, bool) {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case f := <-w.frames:
			if f.Type == "res" {
				return f, true
			}
		case <-w.done:
			for f := range drain(w.frames) {
				if f.Type == "res" {
					return f, true
				}
			}
			var ce websocket.CloseError
			if !errors.As(w.err, &ce) || !protocolCloses[ce.Code] {
				t.Fatalf("connection ended without a protocol close: %v", w.err)
			}
			return frame{}, false
		case <-deadline.C:
			t.Fatal("no answer and no close within 15s")
		}
	}
}

// FuzzWSFrame sends arbitrary bytes as the first request of a connection
// and, on another connection, after a proper connect. The gateway never
// panics: it answers with a response frame or closes with a protocol code.
func FuzzWSFrame(f *testing.F) {
	e := newEnv(f, envOptions{rules: []config.ScriptRule{slowRule(50)}, opts: func(o *gateway.Options) {
		o.Limits = config.GatewayLimits{MaxPayload: 256 << 10, MaxBufferedBytes: 512 << 10}
	}})
	connect := `{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"fuzz","version":"1","mode":"test"}}}`
	for _, s := range [][2]string{
		{connect, `{"type":"req","id":"1","method":"sessions.list","params":{}}`},
		{`{"type":"req","id":"c1","method":"connect","params":{"minProtocol":9,"maxProtocol":9}}`, `{"type":"req","id":"2","method":"chat.send","params":{"sessionKey":"main","message":"hi","idempotencyKey":"k"}}`},
		{`{}`, `{"type":"req","id":2,"method":"agents.list"}`},
		{``, `not json`},
		{`[1,2,3]`, `{"type":"req","id":"3","method":"tools.invoke","params":{"name":"sessions_list","args":{"limit":-1}}}`},
		{`{"type":"req","id":"x","method":"connect","params":null}`, `{"type":"req","id":"4","method":"sessions.patch","params":{"key":"main","label":"\u0000"}}`},
		{"\xff\xfe", `{"type":"req","id":"5","method":"agent","params":{"message":"slow x","idempotencyKey":"a"}}`},
		{`{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":1}}}`, `{"type":"req","id":"6","method":"sessions.spawn","params":{"task":"t","attachments":[{"name":"../x","content":"y"}]}}`},
		{connect, `{"type":"req","id":"7","method":"agent.wait","params":{"runId":"nope","timeoutMs":1e308}}`},
		{connect, `{"type":"req","id":"8","method":"chat.history","params":{"sessionKey":"agent:main:main","limit":99999999999999999999}}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, first, later []byte) {
		// The first frame of a connection.
		w := e.dial(t)
		w.wait(func(f frame) bool { return f.Event == "connect.challenge" })
		if err := w.c.Write(context.Background(), websocket.MessageText, first); err == nil {
			if res, ok := answerOrClose(t, w); ok && res.OK && !strings.Contains(string(res.Payload), "hello-ok") {
				t.Fatalf("a first frame other than connect succeeded: %s", res)
			}
		}
		w.close()

		// A later frame of a connected client.
		w, _ = e.connect(t, nil)
		if err := w.c.Write(context.Background(), websocket.MessageText, later); err != nil {
			return
		}
		answerOrClose(t, w)
		w.close()
	})
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
