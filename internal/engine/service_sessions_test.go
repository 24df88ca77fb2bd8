package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// labelled makes a session with a run and a label.
func (h *harness) labelled(key, label string) {
	h.t.Helper()
	h.chat(key, "hello")
	if _, err := h.e.sessions.Patch(context.Background(), key, api.PatchRequest{Label: api.SetValue(label)}); err != nil {
		h.t.Fatal(err)
	}
}

func TestResolveAnswersHiddenAsUnknown(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	h.labelled("agent:main:main", "dup")
	h.labelled("agent:beta:main", "dup")
	h.labelled("agent:main:notes", "notes")
	op := api.Operator()
	beta := api.Principal{Name: "beta-token", Scopes: api.ScopeRead, Session: "agent:beta:main"}
	tests := []struct {
		name    string
		p       api.Principal
		req     api.ResolveRequest
		wantKey string
		wantErr string
	}{
		{"operator by key", op, api.ResolveRequest{Key: "notes"}, "agent:main:notes", ""},
		{"operator by label", op, api.ResolveRequest{Label: "notes"}, "agent:main:notes", ""},
		{"operator, ambiguous label", op, api.ResolveRequest{Label: "dup"}, "", "Multiple sessions found with label: dup ("},
		{"operator, label narrowed by agent", op, api.ResolveRequest{Label: "dup", AgentID: "beta"}, "agent:beta:main", ""},
		{"two references", op, api.ResolveRequest{Key: "main", Label: "dup"}, "", "Provide either key, sessionId, or label (not multiple)"},
		{"no reference", op, api.ResolveRequest{}, "", "Either key, sessionId, or label is required"},
		// Ambiguity is decided among the sessions the principal may see.
		{"bound, label it sees once", beta, api.ResolveRequest{Label: "dup"}, "agent:beta:main", ""},
		{"bound, bare word is its agent's", beta, api.ResolveRequest{Key: "main"}, "agent:beta:main", ""},
		{"bound, hidden key", beta, api.ResolveRequest{Key: "agent:main:notes"}, "", "No session found: agent:main:notes"},
		{"bound, unknown key", beta, api.ResolveRequest{Key: "agent:beta:nope"}, "", "No session found: agent:beta:nope"},
		{"bound, hidden label", beta, api.ResolveRequest{Label: "notes"}, "", "No session found with label: notes"},
		{"bound, unknown label", beta, api.ResolveRequest{Label: "elsewhere"}, "", "No session found with label: elsewhere"},
		{"no scope", api.Principal{Name: "none"}, api.ResolveRequest{Key: "main"}, "", "missing scope: operator.read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := h.e.Resolve(context.Background(), tt.p, tt.req)
			if tt.wantErr != "" {
				// An ambiguity lists the matches, newest first.
				if err == nil || !strings.HasPrefix(domain.ErrorMessage(err), tt.wantErr) {
					t.Fatalf("resolve = %+v, %v; want error %q", res, err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Key != tt.wantKey {
				t.Fatalf("resolve = %+v, %v; want %s", res, err, tt.wantKey)
			}
		})
	}

	// By sessionId: visible to the operator, unknown to beta.
	s, err := h.e.Session(context.Background(), "agent:main:notes")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.e.Resolve(context.Background(), op, api.ResolveRequest{SessionID: s.SessionID}); err != nil || res.Key != "agent:main:notes" {
		t.Fatalf("by sessionId = %+v, %v", res, err)
	}
	_, hidden := h.e.Resolve(context.Background(), beta, api.ResolveRequest{SessionID: s.SessionID})
	_, unknown := h.e.Resolve(context.Background(), beta, api.ResolveRequest{SessionID: "0000"})
	if domain.ErrorCode(hidden) != domain.CodeNotFound || domain.ErrorMessage(hidden) != "No session found: "+s.SessionID || domain.ErrorCode(unknown) != domain.CodeNotFound {
		t.Fatalf("hidden sessionId: %v; unknown: %v", hidden, unknown)
	}
}

func TestGetSessionIsVisibleOnly(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	h.labelled("agent:main:notes", "notes")
	h.labelled("agent:beta:main", "b")
	ctx := context.Background()
	row, err := h.e.GetSession(ctx, api.Operator(), "agent:main:notes")
	if err != nil || row.Label != "notes" || row.Model != "script" || row.InputTokens == 0 || row.OutputTokens == 0 {
		t.Fatalf("row = %+v, %v", row, err)
	}
	beta := api.Principal{Name: "beta-token", Scopes: api.ScopeRead, Session: "agent:beta:main"}
	if own, err := h.e.GetSession(ctx, beta, "main"); err != nil || own.Label != "b" {
		t.Fatalf("own row = %+v, %v", own, err)
	}
	_, hidden := h.e.GetSession(ctx, beta, "agent:main:notes")
	_, unknown := h.e.GetSession(ctx, beta, "agent:beta:nope")
	if domain.ErrorCode(hidden) != domain.CodeNotFound || domain.ErrorMessage(hidden) != "No session found: agent:main:notes" ||
		domain.ErrorCode(unknown) != domain.CodeNotFound || domain.ErrorMessage(unknown) != "No session found: agent:beta:nope" {
		t.Fatalf("hidden: %v; unknown: %v", hidden, unknown)
	}
}

func TestDefaultsAreTheRequesters(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	for _, tt := range []struct {
		p        api.Principal
		wantMain string
	}{
		{api.Operator(), "agent:main:main"},
		{api.Operator().ActingAs("agent:beta:work"), "agent:beta:main"},
	} {
		d, err := h.e.Defaults(ctx, tt.p)
		if err != nil || d.MainSessionKey != tt.wantMain || d.DefaultAgentID != "main" || d.MainKey != "main" || d.Scope != "per-sender" || d.Model != "script" || (d.TranscriptPath == "") != (tt.p.Requester() != "") {
			t.Fatalf("defaults for %q = %+v, %v", tt.p.Requester(), d, err)
		}
	}
}

func TestDeliverIsOperatorOnlyAndScopesItsKey(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	h.chat("main", "hello")
	req := api.DeliverRequest{To: "someone", Message: "out", IdempotencyKey: "k"}
	a, err := h.e.Deliver(ctx, api.Operator(), req)
	if err != nil || a.Status != "queued" || a.SessionKey != "agent:main:main" {
		t.Fatalf("deliver = %+v, %v", a, err)
	}
	again, err := h.e.Deliver(ctx, api.Operator(), req)
	if err != nil || again.MessageID != a.MessageID {
		t.Fatalf("retry = %+v, %v; want message %s", again, err, a.MessageID)
	}
	// Another principal's same key is another message.
	other := api.Principal{Name: "ops2", Scopes: api.AllScopes}
	b, err := h.e.Deliver(ctx, other, req)
	if err != nil || b.MessageID == a.MessageID {
		t.Fatalf("other principal = %+v, %v; want a new message", b, err)
	}
	if _, err := h.e.Deliver(ctx, api.Operator().ActingAs("main"), req); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("deliver as a session: %v", err)
	}
}

// TestDeliverMirrorsIntoTranscriptOnce checks docs/design.md#durability: a gateway `send`
// to a channel with no external service is in the session's transcript
// (an assistant message marked as the delivery mirror, zero usage), and a
// retry with the same idempotency key writes no second copy.
func TestDeliverMirrorsIntoTranscriptOnce(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	h.chat("main", "hello")
	req := api.DeliverRequest{To: "someone", Message: "deploy finished", IdempotencyKey: "mirror"}
	for range 2 {
		if _, err := h.e.Deliver(ctx, api.Operator(), req); err != nil {
			t.Fatal(err)
		}
	}
	var mirrors []domain.Message
	for _, m := range h.history("agent:main:main") {
		if m.Content.Text() == "deploy finished" {
			mirrors = append(mirrors, m)
		}
	}
	if len(mirrors) != 1 {
		t.Fatalf("transcript has %d copies of the sent message, want 1", len(mirrors))
	}
	m := mirrors[0]
	if m.Role != domain.RoleAssistant || m.Model != "delivery-mirror" || m.Kind != "delivery" || m.Usage == nil || m.Usage.TotalTokens != 0 {
		t.Errorf("mirror = %+v", m)
	}
	// A send into a session that does not exist yet creates it.
	if _, err := h.e.Deliver(ctx, api.Operator(), api.DeliverRequest{SessionKey: "agent:main:fresh", To: "someone", Message: "first"}); err != nil {
		t.Fatal(err)
	}
	if got := h.history("agent:main:fresh"); len(got) != 1 || got[0].Content.Text() != "first" {
		t.Errorf("fresh session transcript = %+v", got)
	}
}
