package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/config"
)

// TestReloadRevokesCredentials: after a configuration reload removes a
// token or narrows its grant, the WebSocket connections it opened are
// closed with 1008 "credential revoked" and its HTTP requests in progress
// end with a 403 naming the same; connections whose grant is unchanged
// keep working.
func TestReloadRevokesCredentials(t *testing.T) {
	e := principalEnv(t, slowRule(60_000))
	writer, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokWrite}})
	boundAdmin, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokBoundAdmin}})
	bound, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokBound}})
	reader, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokRead}})
	op, _ := e.connect(t, map[string]any{"auth": map[string]any{"token": tokOperator}})
	op.ok("sessions.subscribe", map[string]any{}, nil)

	// A request of the write token waits on a run that will not end soon.
	type answer struct {
		code int
		body map[string]any
	}
	held := make(chan answer, 1)
	go func() {
		var body map[string]any
		code := e.doToken(t, tokWrite, "POST", "/api/sessions/main/chat?wait=60s", map[string]any{"message": "slow one"}, &body)
		held <- answer{code, body}
	}()
	// Any event of main means the request is in its handler.
	op.wait(func(f frame) bool {
		return f.Type == "event" && strings.Contains(string(f.Payload), `"agent:main:main"`) &&
			(f.Event == "agent" || f.Event == "chat" || f.Event == "sessions.changed")
	})

	// The write token is gone; the bound admin token loses admin; the
	// bound and read tokens are unchanged.
	e.srv.SetAuth(tokOperator, []config.TokenBinding{
		{Name: "reader", Token: tokRead, Scopes: []string{"read"}},
		{Name: "claude", Token: tokBound, Session: boundSession},
		{Name: "claude-admin", Token: tokBoundAdmin, Session: boundSession, Scopes: []string{"read", "write"}},
	})

	for name, w := range map[string]*wsClient{"write token": writer, "narrowed bound token": boundAdmin} {
		code, reason := w.closed()
		if code != websocket.StatusPolicyViolation || reason != "credential revoked" {
			t.Errorf("%s connection closed with %d %q, want 1008 \"credential revoked\"", name, code, reason)
		}
	}
	got := <-held
	if got.code != http.StatusForbidden || !strings.Contains(fmt.Sprint(got.body), "credential revoked") {
		t.Errorf("held request of the removed token = %d %v, want 403 credential revoked", got.code, got.body)
	}
	for name, w := range map[string]*wsClient{"bound": bound, "reader": reader, "operator": op} {
		if res := w.call("sessions.list", map[string]any{}); !res.OK {
			t.Errorf("%s connection, grant unchanged, refused after the reload: %s", name, res)
		}
	}
	// The removed token cannot reconnect.
	if code := e.doToken(t, tokWrite, "GET", "/api/sessions", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("removed token after the reload = %d, want 401", code)
	}
}
