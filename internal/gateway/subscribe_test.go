package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// eventKey is the session and run of an event frame.
func eventKey(t *testing.T, f frame) (key, runID string) {
	t.Helper()
	var p struct {
		SessionKey string `json:"sessionKey"`
		RunID      string `json:"runId"`
	}
	_ = json.Unmarshal(f.Payload, &p)
	return p.SessionKey, p.RunID
}

// chatFinalOf waits for the chat final of a session.
func chatFinalOf(w *wsClient, key string) frame {
	w.t.Helper()
	return w.wait(func(f frame) bool {
		if f.Event != "chat" {
			return false
		}
		var p struct{ SessionKey, State string }
		_ = json.Unmarshal(f.Payload, &p)
		return p.SessionKey == key && p.State == "final"
	})
}

// seen reports the session keys of the event frames w holds pending.
func seen(t *testing.T, w *wsClient) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, f := range append(w.pending, drainAll(w.frames)...) {
		if f.Type != "event" {
			continue
		}
		k, _ := eventKey(t, f)
		if out[k] == nil {
			out[k] = map[string]int{}
		}
		out[k][f.Event]++
	}
	w.pending = nil
	return out
}

// TestSubscriptions: who gets which events (docs/design.md#events-and-subscriptions). Events of one
// connection arrive in publish order, so once a later event arrived an
// earlier one it should not get would have arrived too.
func TestSubscriptions(t *testing.T) {
	e := principalEnv(t)
	const x, y, z = "agent:main:subx", "agent:main:suby", "agent:main:subz"
	for _, k := range []string{x, y, z} {
		e.chatDone(t, k, "create")
	}
	op := map[string]any{"auth": map[string]any{"token": tokOperator}}
	broadcast, _ := e.connect(t, op)
	onX, _ := e.connect(t, op)
	onSessions, _ := e.connect(t, op)
	starter, _ := e.connect(t, op)

	var sub struct {
		Subscribed bool
		Key        string
	}
	onX.ok("sessions.messages.subscribe", map[string]any{"key": x}, &sub)
	if !sub.Subscribed || sub.Key != x {
		t.Fatalf("subscribe answer %+v", sub)
	}
	onSessions.ok("sessions.subscribe", map[string]any{}, nil)
	starter.ok("sessions.messages.subscribe", map[string]any{"key": z}, nil)

	// A run on y started by `starter`, then one on x by the operator over HTTP.
	var ack struct{ RunID string }
	starter.ok("agent", map[string]any{"message": "hello y", "sessionKey": y, "idempotencyKey": "y1"}, &ack)
	chatFinalOf(starter, y)
	e.chatDone(t, x, "hello x")

	chatFinalOf(broadcast, x)
	if got := seen(t, broadcast); got[y]["chat"] == 0 || got[x]["agent"] == 0 {
		t.Errorf("an operator that did not subscribe misses events: %v", got)
	}
	chatFinalOf(onX, x)
	got := seen(t, onX)
	if got[y] != nil {
		t.Errorf("a connection subscribed to %s got events of %s: %v", x, y, got[y])
	}
	if got[x]["session.message"] == 0 || got[x]["agent"] == 0 {
		t.Errorf("the subscriber of %s lacks its agent/session.message events: %v", x, got[x])
	}
	// sessions.subscribe: sessions.changed only, no chat or agent events.
	onSessions.wait(func(f frame) bool {
		k, _ := eventKey(t, f)
		return f.Event == "sessions.changed" && k == x
	})
	for k, evs := range seen(t, onSessions) {
		if evs["chat"]+evs["agent"] > 0 {
			t.Errorf("a sessions.subscribe connection got run events of %s: %v", k, evs)
		}
	}
	// The starter got its own run on y although subscribed only to z,
	// and nothing of x.
	if got := seen(t, starter); got[x] != nil {
		t.Errorf("the starter got events of %s: %v", x, got[x])
	}

	// After unsubscribing, x's events stop; z's (still subscribed) go on.
	onX.ok("sessions.messages.subscribe", map[string]any{"key": z}, nil)
	onX.ok("sessions.messages.unsubscribe", map[string]any{"key": x}, nil)
	e.chatDone(t, x, "again x")
	e.chatDone(t, z, "then z")
	chatFinalOf(onX, z)
	if got := seen(t, onX); got[x] != nil {
		t.Errorf("events of %s after unsubscribing: %v", x, got[x])
	}

	// An operator that holds no subscription any more is on the
	// broadcast again.
	onX.ok("sessions.messages.unsubscribe", map[string]any{"key": z}, nil)
	e.chatDone(t, y, "broadcast again")
	chatFinalOf(onX, y)
}

// TestSubscribeGate: subscribe keys go through the gate: a session the
// principal may not see answers as an unknown one; a read-only token may
// subscribe (read scope); bad params name the field.
func TestSubscribeGate(t *testing.T) {
	e := principalEnv(t)
	e.chatDone(t, "agent:work:main", "secret")
	e.chatDone(t, boundSession, "mine")
	bound, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokBound}})
	reader, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokRead}})

	tests := []struct {
		name    string
		w       *wsClient
		method  string
		params  map[string]any
		errText string // "" = ok; else the INVALID_REQUEST message contains it
	}{
		{"bound token, a session it may not see", bound, "sessions.messages.subscribe", map[string]any{"key": "agent:work:main"}, "No session found"},
		{"bound token, its own session", bound, "sessions.messages.subscribe", map[string]any{"key": boundSession}, ""},
		{"bound token, sessions.subscribe", bound, "sessions.subscribe", map[string]any{}, ""},
		{"read-only token", reader, "sessions.messages.subscribe", map[string]any{"key": "agent:work:main"}, ""},
		{"read-only token unsubscribes", reader, "sessions.messages.unsubscribe", map[string]any{"key": "agent:work:main"}, ""},
		{"missing key", reader, "sessions.messages.subscribe", map[string]any{}, "key"},
		// A key the principal could see once its session exists may be
		// subscribed to before (docs/design.md#events-and-subscriptions: any client may subscribe; the
		// events it then gets are still those it may see) …
		{"a key with no session yet", reader, "sessions.messages.subscribe", map[string]any{"key": "agent:main:nope"}, ""},
		// … while one it could not see answers as before, existing or not,
		// so the answer tells nothing of which sessions exist.
		{"bound token, a key of its agent outside its tree, no session", bound, "sessions.messages.subscribe", map[string]any{"key": "agent:main:later"}, "No session found"},
		{"bound token, another agent's key, no session", bound, "sessions.messages.subscribe", map[string]any{"key": "agent:work:later"}, "No session found"},
		// The error names the param the client sent, and counts characters.
		{"key too long", reader, "sessions.messages.subscribe", map[string]any{"key": strings.Repeat("k", 513)}, "key is too long (513 characters; max 512)"},
		{"sessionKey too long", reader, "sessions.messages.subscribe", map[string]any{"key": strings.Repeat("k", 513)}, "key is too long (513 characters; max 512)"},
		// 300 characters are within the limit, though 600 bytes: the key
		// package counts characters too, so the key is valid (and, names
		// no session yet, may be subscribed to).
		{"long in bytes, short in characters", reader, "sessions.messages.subscribe", map[string]any{"key": strings.Repeat("é", 300)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.w.call(tt.method, tt.params)
			switch {
			case tt.errText == "" && !res.OK:
				t.Fatalf("refused: %s", res)
			case tt.errText != "" && (res.OK || res.Error.Code != "INVALID_REQUEST" || !strings.Contains(res.Error.Message, tt.errText)):
				t.Fatalf("got %s, want INVALID_REQUEST with %q", res, tt.errText)
			}
		})
	}
}

// TestSubscribeMainKey: `main` subscribes to the canonical main session,
// whose events carry the canonical key.
func TestSubscribeMainKey(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.do(t, "POST", "/api/sessions/main/chat?wait=10s", map[string]any{"message": "hi"}, nil)
	w, _ := e.connect(t, nil)
	var sub struct{ Key string }
	w.ok("sessions.messages.subscribe", map[string]any{"key": "main"}, &sub)
	if sub.Key != "agent:main:main" {
		t.Fatalf("subscribed key %q, want agent:main:main", sub.Key)
	}
	if code := e.do(t, "POST", "/api/sessions/main/chat", map[string]any{"message": "again"}, nil); code/100 != 2 {
		t.Fatalf("chat: HTTP %d", code)
	}
	chatFinalOf(w, "agent:main:main")
}

// TestSubscribeBeforeTheSessionExists: a client subscribes to a key whose
// session its first chat creates, and gets that run's events (the trial's
// "No session found" before the first chat.send).
func TestSubscribeBeforeTheSessionExists(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	var sub struct {
		Key        string
		Subscribed bool
	}
	w.ok("sessions.messages.subscribe", map[string]any{"key": "agent:main:Direct:Carol"}, &sub)
	if !sub.Subscribed || sub.Key != "agent:main:direct:carol" {
		t.Fatalf("subscribe = %+v, want the canonical key agent:main:direct:carol", sub)
	}
	var body json.RawMessage
	if code := e.do(t, "POST", "/api/sessions/agent:main:direct:carol/chat", map[string]any{"message": "first"}, &body); code/100 != 2 {
		t.Fatalf("chat: HTTP %d %s", code, body)
	}
	chatFinalOf(w, "agent:main:direct:carol")
}
