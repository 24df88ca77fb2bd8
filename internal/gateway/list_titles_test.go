package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/gateway"
)

// TestSessionsListTitlesAndPreviews: sessions.list with includeDerivedTitles
// and includeLastMessage adds OpenClaw's derivedTitle (the first user
// message, cut at 60 characters; the label when there is one) and
// lastMessagePreview (the newest message); without them neither field is
// read or sent, and GET /api/sessions takes the same flags.
func TestSessionsListTitlesAndPreviews(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	first := "please   summarise the quarterly report for the northern region and flag anything odd"
	turns := []struct{ key, msg string }{
		{"agent:main:direct:alice", first},
		{"agent:main:direct:alice", "and now the southern one"},
		{"agent:main:direct:bob", "hi"},
	}
	for i, tu := range turns {
		id := w.send("agent", map[string]any{"message": tu.msg, "sessionKey": tu.key, "idempotencyKey": "t" + string(rune('a'+i))})
		w.response(id)
		if final := w.response(id); !final.OK {
			t.Fatalf("agent %q = %s", tu.msg, final)
		}
	}
	w.ok("sessions.patch", map[string]any{"key": "agent:main:direct:bob", "label": "Bob's chat"}, nil)

	list := func(params map[string]any) map[string]gateway.SessionRow {
		t.Helper()
		var out struct {
			Sessions []gateway.SessionRow `json:"sessions"`
		}
		w.ok("sessions.list", params, &out)
		rows := map[string]gateway.SessionRow{}
		for _, r := range out.Sessions {
			rows[r.Key] = r
		}
		return rows
	}
	plain := list(map[string]any{})
	if r := plain["agent:main:direct:alice"]; r.DerivedTitle != "" || r.LastMessagePreview != "" {
		t.Fatalf("without the flags: derivedTitle %q lastMessagePreview %q", r.DerivedTitle, r.LastMessagePreview)
	}
	rows := list(map[string]any{"includeDerivedTitles": true, "includeLastMessage": true})
	alice, bob := rows["agent:main:direct:alice"], rows["agent:main:direct:bob"]
	if want := "please summarise the quarterly report for the northern…"; alice.DerivedTitle != want {
		t.Errorf("alice derivedTitle = %q, want %q", alice.DerivedTitle, want)
	}
	if want := "echo: and now the southern one"; alice.LastMessagePreview != want {
		t.Errorf("alice lastMessagePreview = %q, want %q", alice.LastMessagePreview, want)
	}
	if bob.DerivedTitle != "Bob's chat" || bob.LastMessagePreview != "echo: hi" {
		t.Errorf("bob = derivedTitle %q lastMessagePreview %q", bob.DerivedTitle, bob.LastMessagePreview)
	}
	only := list(map[string]any{"includeLastMessage": true})["agent:main:direct:alice"]
	if only.DerivedTitle != "" || only.LastMessagePreview == "" {
		t.Errorf("includeLastMessage alone = derivedTitle %q lastMessagePreview %q", only.DerivedTitle, only.LastMessagePreview)
	}
	if res := w.call("sessions.list", map[string]any{"includeLastMessage": "yes"}); res.OK || !strings.Contains(res.Error.Message, "includeLastMessage") {
		t.Errorf("includeLastMessage \"yes\" = %s", res)
	}

	var page struct {
		Sessions []gateway.SessionRow `json:"sessions"`
	}
	if code := e.do(t, http.MethodGet, "/api/sessions?includeDerivedTitles=true&includeLastMessage=true", nil, &page); code != http.StatusOK {
		t.Fatalf("GET /api/sessions = %d", code)
	}
	found := false
	for _, r := range page.Sessions {
		if r.Key == "agent:main:direct:alice" {
			found = true
			if r.DerivedTitle != alice.DerivedTitle || r.LastMessagePreview != alice.LastMessagePreview {
				t.Errorf("HTTP row = derivedTitle %q lastMessagePreview %q, want the WS row's", r.DerivedTitle, r.LastMessagePreview)
			}
		}
	}
	if !found {
		t.Fatalf("GET /api/sessions lacks alice's row")
	}
}
