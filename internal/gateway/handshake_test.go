package gateway_test

import (
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

func TestHandshake(t *testing.T) {
	e := newEnv(t, envOptions{token: "secret-token"})
	all := []string{gateway.ScopeRead, gateway.ScopeWrite, gateway.ScopeAdmin, gateway.ScopeApprovals, gateway.ScopePairing, gateway.ScopeTalkSecrets}
	tests := []struct {
		name       string
		min, max   int
		scopes     []string
		wantProto  float64
		wantScopes []string
	}{
		{"v3 client", 3, 3, nil, 3, all},
		{"v4 client (OpenClaw 2026.9 CLI)", 4, 4, []string{gateway.ScopeRead}, 4, []string{gateway.ScopeRead}},
		{"range picks highest", 1, 9, []string{gateway.ScopeWrite, "operator.bogus"}, 4, []string{gateway.ScopeWrite}},
		{"old range", 2, 3, nil, 3, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			params := map[string]any{"minProtocol": tt.min, "maxProtocol": tt.max}
			if tt.scopes != nil {
				params["scopes"] = tt.scopes
			}
			_, hello := e.connect(t, params)
			if hello["type"] != "hello-ok" || hello["protocol"] != tt.wantProto {
				t.Fatalf("hello = type %v protocol %v, want hello-ok %v", hello["type"], hello["protocol"], tt.wantProto)
			}
			auth := hello["auth"].(map[string]any)
			var got []string
			for _, s := range auth["scopes"].([]any) {
				got = append(got, s.(string))
			}
			if !slices.Equal(got, tt.wantScopes) || auth["role"] != "operator" {
				t.Fatalf("auth = %v, want scopes %v", auth, tt.wantScopes)
			}
			for _, key := range []string{"server", "features", "snapshot", "policy"} {
				if hello[key] == nil {
					t.Fatalf("hello-ok lacks %s: %v", key, hello)
				}
			}
			snap := hello["snapshot"].(map[string]any)
			defaults := snap["sessionDefaults"].(map[string]any)
			if defaults["mainSessionKey"] != "agent:main:main" || snap["authMode"] != "token" {
				t.Fatalf("snapshot = %v", snap)
			}
			methods := hello["features"].(map[string]any)["methods"].([]any)
			if !slices.Contains(methods, any("agent.wait")) || !slices.Contains(methods, any("tools.invoke")) {
				t.Fatalf("methods = %v", methods)
			}
			policy := hello["policy"].(map[string]any)
			if policy["maxPayload"] != float64(gateway.DefaultMaxPayload) || policy["tickIntervalMs"] != float64(30000) {
				t.Fatalf("policy = %v", policy)
			}
		})
	}
}

func TestHandshakeFailures(t *testing.T) {
	// The failures below must be answered before the handshake timeout, so
	// it is far above what a loaded machine needs; the timeout itself has
	// its own test with a short one.
	e := newEnv(t, envOptions{token: "secret-token", opts: func(o *gateway.Options) { o.HandshakeTimeout = time.Minute }})
	base := func() map[string]any {
		return map[string]any{"minProtocol": 4, "maxProtocol": 4, "auth": map[string]any{"token": "secret-token"}}
	}
	tests := []struct {
		name      string
		frame     any    // first request (nil: send nothing)
		raw       string // or raw text
		wantErr   string // response error message ("" = no response expected)
		wantCode  websocket.StatusCode
		wantClose string
		// refused: the server closes while the frame is still being
		// written (it is over the pre-handshake limit), so the write may
		// fail and the close frame may be lost to the reset that follows.
		refused bool
	}{
		{name: "wrong first method", frame: map[string]any{"type": "req", "id": "1", "method": "sessions.list", "params": map[string]any{}},
			wantErr: "invalid handshake: first request must be connect", wantCode: websocket.StatusPolicyViolation},
		{name: "protocol mismatch", frame: map[string]any{"type": "req", "id": "1", "method": "connect",
			"params": map[string]any{"minProtocol": 5, "maxProtocol": 6, "auth": map[string]any{"token": "secret-token"}}},
			wantErr: "protocol mismatch", wantCode: websocket.StatusProtocolError},
		{name: "bad token", frame: map[string]any{"type": "req", "id": "1", "method": "connect",
			"params": map[string]any{"minProtocol": 3, "maxProtocol": 4, "auth": map[string]any{"token": "wrong"}}},
			wantErr: "unauthorized: gateway token mismatch", wantCode: websocket.StatusPolicyViolation},
		{name: "missing token", frame: map[string]any{"type": "req", "id": "1", "method": "connect",
			"params": map[string]any{"minProtocol": 3, "maxProtocol": 4}},
			wantErr: "unauthorized: gateway token missing", wantCode: websocket.StatusPolicyViolation},
		{name: "missing protocol range", frame: map[string]any{"type": "req", "id": "1", "method": "connect",
			"params": map[string]any{"auth": map[string]any{"token": "secret-token"}}},
			wantErr: "invalid connect params: minProtocol and maxProtocol required", wantCode: websocket.StatusPolicyViolation},
		{name: "wrong param type", frame: map[string]any{"type": "req", "id": "1", "method": "connect",
			"params": map[string]any{"minProtocol": "four", "maxProtocol": 4}},
			wantErr: "invalid connect params: minProtocol must be a number (got a string)", wantCode: websocket.StatusPolicyViolation},
		{name: "node role", frame: map[string]any{"type": "req", "id": "1", "method": "connect", "params": func() map[string]any {
			p := base()
			p["role"] = "node"
			return p
		}()}, wantErr: `role "node" is not supported`, wantCode: websocket.StatusPolicyViolation},
		{name: "invalid JSON", raw: "{not json", wantCode: websocket.StatusPolicyViolation, wantClose: "not JSON"},
		{name: "preauth frame too large", raw: `{"type":"req","id":"1","method":"connect","params":{"pad":"` + strings.Repeat("x", 70<<10) + `"}}`,
			wantCode: websocket.StatusMessageTooBig, refused: true},
		// Far over the limit the write fails (the server resets the
		// connection under the writer) on every run, not only under load.
		{name: "preauth frame far too large", raw: `{"type":"req","id":"1","method":"connect","params":{"pad":"` + strings.Repeat("x", 4<<20) + `"}}`,
			wantCode: websocket.StatusMessageTooBig, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := e.dial(t)
			w.wait(func(f frame) bool { return f.Event == "connect.challenge" })
			switch {
			case tt.frame != nil:
				w.write(tt.frame)
			case tt.refused:
				if err := w.tryWriteRaw([]byte(tt.raw)); err != nil {
					t.Logf("write failed, as a refused frame may: %v", err)
				}
				refusedClose(t, w, tt.wantCode)
				return
			case tt.raw != "":
				w.writeRaw([]byte(tt.raw))
			}
			if tt.wantErr != "" {
				res := w.response("1")
				if res.OK || res.Error == nil || !strings.Contains(res.Error.Message, tt.wantErr) || res.Error.Code != gateway.CodeInvalidRequest {
					t.Fatalf("response = %s, want INVALID_REQUEST %q", res, tt.wantErr)
				}
			}
			code, reason := w.closed()
			if code != tt.wantCode || !strings.Contains(reason, tt.wantClose) {
				t.Fatalf("closed with %d %q, want %d %q", code, reason, tt.wantCode, tt.wantClose)
			}
		})
	}
}

// refusedClose checks how the server ended a connection whose frame it
// refused while the client was still writing it: with want when the close
// frame arrived, or with a reset that lost it; either way without
// answering the frame (no response, no hello-ok).
func refusedClose(t *testing.T, w *wsClient, want websocket.StatusCode) {
	t.Helper()
	code, reason := w.closed()
	var ce websocket.CloseError
	switch {
	case errors.As(w.err, &ce):
		if code != want {
			t.Fatalf("closed with %d %q, want %d", code, reason, want)
		}
	case !lostToReset(w.err):
		t.Fatalf("connection ended with %v, want close %d or a reset", w.err, want)
	}
	for f := range drain(w.frames) {
		w.pending = append(w.pending, f)
	}
	if len(w.pending) > 0 {
		t.Fatalf("the server answered a refused frame: %v", w.pending)
	}
}

// lostToReset reports whether a read ended because the peer reset or
// closed the TCP connection (the close frame, if sent, was not read).
func lostToReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE)
}

// A client that sends nothing after the challenge is closed when the
// handshake timeout ends (nothing else happens on this connection, so a
// short timeout cannot race the test).
func TestHandshakeTimeout(t *testing.T) {
	e := newEnv(t, envOptions{token: "secret-token", opts: func(o *gateway.Options) { o.HandshakeTimeout = 200 * time.Millisecond }})
	w := e.dial(t)
	w.wait(func(f frame) bool { return f.Event == "connect.challenge" })
	if code, reason := w.closed(); code != websocket.StatusPolicyViolation || !strings.Contains(reason, "handshake timeout") {
		t.Fatalf("closed with %d %q, want %d handshake timeout", code, reason, websocket.StatusPolicyViolation)
	}
}

func TestFrames(t *testing.T) {
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) { o.MaxPayload = 4096 }})

	t.Run("frame over maxPayload closes 1009", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		w.write(map[string]any{"type": "req", "id": "big", "method": "sessions.list", "params": map[string]any{"pad": strings.Repeat("x", 5000)}})
		if code, _ := w.closed(); code != websocket.StatusMessageTooBig {
			t.Fatalf("closed with %d, want 1009", code)
		}
	})
	t.Run("invalid JSON closes 1008", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		w.writeRaw([]byte(`{"type":"req",`))
		if code, reason := w.closed(); code != websocket.StatusPolicyViolation || !strings.Contains(reason, "JSON") {
			t.Fatalf("closed with %d %q", code, reason)
		}
	})
	t.Run("binary frame closes 1003", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		if err := w.c.Write(t.Context(), websocket.MessageBinary, []byte("{}")); err != nil {
			t.Fatal(err)
		}
		if code, _ := w.closed(); code != websocket.StatusUnsupportedData {
			t.Fatalf("closed with %d, want 1003", code)
		}
	})
	t.Run("not a request with an id gets an error and the connection stays", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		w.write(map[string]any{"type": "event", "id": "x1", "event": "hello"})
		res := w.response("x1")
		if res.OK || res.Error.Code != gateway.CodeInvalidRequest || !strings.Contains(res.Error.Message, "invalid request frame") {
			t.Fatalf("response = %s", res)
		}
		w.ok("agents.list", nil, nil)
	})
	t.Run("frame without id closes 1008", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		w.write(map[string]any{"type": "req", "method": "agents.list"})
		if code, _ := w.closed(); code != websocket.StatusPolicyViolation {
			t.Fatalf("closed with %d, want 1008", code)
		}
	})
	t.Run("unknown method", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		res := w.call("nope.nothing", map[string]any{})
		if res.OK || res.Error.Code != gateway.CodeInvalidRequest || res.Error.Message != "unknown method: nope.nothing" {
			t.Fatalf("response = %s", res)
		}
	})
	t.Run("second connect is refused", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		res := w.call("connect", map[string]any{"minProtocol": 4, "maxProtocol": 4})
		if res.OK || !strings.Contains(res.Error.Message, "already connected") {
			t.Fatalf("response = %s", res)
		}
	})
	t.Run("params of the wrong shape", func(t *testing.T) {
		w, _ := e.connect(t, nil)
		for _, tc := range []struct {
			method string
			params any
			want   string
		}{
			{"chat.history", []int{1}, "invalid chat.history params: must be object"},
			{"chat.history", map[string]any{"sessionKey": "main", "limit": -1}, "invalid chat.history params: at /limit: must be >= 1"},
			{"chat.history", map[string]any{"sessionKey": 7}, "invalid chat.history params: at /sessionKey: must be string"},
			{"chat.history", map[string]any{"sessionKey": "main", "limit": "ten"}, "invalid chat.history params: at /limit: must be integer"},
			{"sessions.list", map[string]any{"limit": true}, "invalid sessions.list params: at /limit: must be integer"},
			{"chat.send", map[string]any{"sessionKey": "main", "message": []any{"x"}}, "invalid chat.send params: at /message: must be string"},
			{"chat.send", map[string]any{"sessionKey": "main", "message": "x", "idempotencyKey": noIdemKey}, "invalid chat.send params: must have required property 'idempotencyKey'"},
			{"agent", map[string]any{"message": "x", "idempotencyKey": noIdemKey}, "invalid agent params: must have required property 'idempotencyKey'"},
			{"chat.history", map[string]any{"sessionKey": "main", "limit": 5000}, "invalid chat.history params: at /limit: must be <= 1000"},
			{"chat.history", map[string]any{"sessionKey": "main", "bogus": 1}, "invalid chat.history params: at root: unexpected property 'bogus'"},
			{"agent.wait", map[string]any{"runId": "x", "timeoutMs": 1.5}, "invalid agent.wait params: at /timeoutMs: must be integer"},
			{"agent.wait", map[string]any{"runId": "x", "timeoutMs": -1}, "invalid agent.wait params: at /timeoutMs: must be >= 0"},
			{"agent", map[string]any{"message": " "}, "invalid agent params: message required"},
			{"agent", map[string]any{"message": "hi", "agentId": "ghost"}, `invalid agent params: unknown agent id "ghost"`},
			{"agent", map[string]any{"message": "hi", "channel": "bogusnet"}, "invalid agent params: unknown channel: bogusnet"},
			{"agent", map[string]any{"message": "hi", "sessionKey": "agent:"}, `invalid agent params: malformed session key "agent:"`},
			{"chat.send", map[string]any{"sessionKey": "main", "message": "x", "originatingChannel": "bogusnet"}, "unknown channel: bogusnet"},
			{"chat.send", map[string]any{"sessionKey": "main", "message": "x", "attachments": []any{map[string]any{"fileName": "a.png"}}}, "invalid chat.send params: attachments[0].content required"},
			{"agent", map[string]any{"message": "x", "attachments": []any{map[string]any{"content": "aGk="}, map[string]any{"mimeType": "image/png"}}}, "invalid agent params: attachments[1].content required"},
			{"agent", map[string]any{"message": "x", "attachments": []any{map[string]any{"content": "!!!!"}}}, "invalid agent params: attachments[0].content: not valid base64"},
			{"agent", map[string]any{"message": "x", "idempotencyKey": ""}, "invalid agent params: at /idempotencyKey: must not have fewer than 1 characters"},
			{"chat.send", map[string]any{"sessionKey": "main", "message": "x", "idempotencyKey": "  "}, "invalid chat.send params: idempotencyKey must not be empty"},
			{"agent", map[string]any{"message": "hi", "agentId": "work", "sessionKey": "agent:main:x"}, `invalid agent params: agent "work" does not match session key agent "main"`},
			{"sessions.patch", map[string]any{"key": "main", "fastMode": true}, "invalid sessions.patch params: fastMode is not supported"},
			{"sessions.patch", map[string]any{"key": "main", "sendPolicy": "maybe"}, "invalid sessions.patch params: at /sendPolicy: must be equal to constant; at /sendPolicy: must be null; at /sendPolicy: must match a schema in anyOf"},
			{"sessions.patch", map[string]any{"key": "main", "label": 3}, "invalid sessions.patch params: at /label: must be string; at /label: must be null; at /label: must match a schema in anyOf"},
			{"sessions.reset", map[string]any{"key": "main", "reason": "bogus"}, "invalid sessions.reset params: at /reason: must be equal to constant; at /reason: must match a schema in anyOf"},
			{"sessions.list", map[string]any{"limit": -1}, "invalid sessions.list params: at /limit: must be >= 1"},
			{"sessions.list", map[string]any{"activeMinutes": -5}, "invalid sessions.list params: at /activeMinutes: must be >= 1"},
			{"chat.send", map[string]any{"sessionKey": "main", "message": "x", "timeoutMs": 604_801_000}, "timeoutMs: timeoutSeconds must be at most 604800 seconds"},
		} {
			res := w.call(tc.method, tc.params)
			if res.OK || res.Error.Code != gateway.CodeInvalidRequest || !strings.Contains(res.Error.Message, tc.want) {
				t.Errorf("%s %v = %s, want %q", tc.method, tc.params, res, tc.want)
			}
		}
	})
}

func TestScopes(t *testing.T) {
	e := newEnv(t, envOptions{token: "main-token", tokens: []config.TokenBinding{
		{Token: "reader-token", Scopes: []string{"read"}},
		{Token: "writer-token", Scopes: []string{"write"}},
	}})
	tests := []struct {
		name   string
		token  string
		scopes []string
		method string
		params any
		want   string // "" = allowed
	}{
		{"read token reads", "reader-token", nil, "sessions.list", map[string]any{}, ""},
		{"read token cannot write", "reader-token", nil, "chat.send", map[string]any{"sessionKey": "main", "message": "x"}, "missing scope: operator.write"},
		{"read token asking for admin gets nothing more", "reader-token", []string{gateway.ScopeAdmin}, "sessions.list", map[string]any{}, "missing scope: operator.read"},
		{"write token reads too", "writer-token", nil, "agents.list", nil, ""},
		{"write token cannot patch", "writer-token", nil, "sessions.patch", map[string]any{"key": "main", "label": "x"}, "missing scope: operator.admin"},
		{"write token cannot /reset", "writer-token", nil, "chat.send", map[string]any{"sessionKey": "main", "message": "/reset"}, "missing scope: operator.admin"},
		{"main token narrowed by request", "main-token", []string{gateway.ScopeRead}, "agent", map[string]any{"message": "hi"}, "missing scope: operator.write"},
		{"main token admin", "main-token", []string{gateway.ScopeAdmin}, "sessions.patch", map[string]any{"key": "main", "label": "admin-set"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			params := map[string]any{"auth": map[string]any{"token": tt.token}}
			if tt.scopes != nil {
				params["scopes"] = tt.scopes
			}
			w, _ := e.connect(t, params)
			res := w.call(tt.method, tt.params)
			if tt.want == "" {
				if !res.OK {
					t.Fatalf("%s refused: %s", tt.method, res)
				}
				return
			}
			if res.OK || res.Error.Code != gateway.CodeForbidden || res.Error.Message != tt.want {
				t.Fatalf("response = %s, want %q", res, tt.want)
			}
		})
	}
}

func TestTickEvents(t *testing.T) {
	e := newEnv(t, envOptions{opts: func(o *gateway.Options) { o.TickInterval = 20 * time.Millisecond }})
	w, hello := e.connect(t, nil)
	if p := hello["policy"].(map[string]any); p["tickIntervalMs"] != float64(20) {
		t.Fatalf("policy = %v", p)
	}
	var last int64
	for range 3 {
		f := w.wait(func(f frame) bool { return f.Event == "tick" })
		if f.Seq == nil || *f.Seq <= last {
			t.Fatalf("tick seq = %v after %d", f.Seq, last)
		}
		last = *f.Seq
	}
}
