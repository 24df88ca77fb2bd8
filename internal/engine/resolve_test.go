package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func twoAgents(c *config.Config) {
	c.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "beta"}}
	c.Tools.Sessions.Visibility = "agent"
}

func TestReferenceShapedLikeASessionIDIsALookup(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	h.chat("main", "hello")
	s, err := h.e.Session(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	op := api.Operator()
	for _, ref := range []string{"d386f8db-6fdf-4c7e", "d386f8db-6fdf-4c7e-8a1b-0123456789ab", s.SessionID[:13]} {
		_, err := h.e.History(ctx, op, api.HistoryRequest{SessionKey: ref})
		if domain.ErrorCode(err) != domain.CodeNotFound || !strings.HasPrefix(domain.ErrorMessage(err), "Session not found: "+ref) {
			t.Errorf("history %q: err = %v (code %s), want Session not found", ref, err, domain.ErrorCode(err))
		}
	}
	res, err := h.e.History(ctx, op, api.HistoryRequest{SessionKey: s.SessionID})
	if err != nil || res.SessionID != s.SessionID || len(res.Messages) == 0 {
		t.Fatalf("history by full sessionId = %+v, %v", res, err)
	}
}

func TestBareWordIsAKeyOfTheRequestersAgent(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	key, err := h.e.resolveRef(ctx, Requester{SessionKey: "agent:beta:main"}, "notes")
	if err != nil || key != "agent:beta:notes" {
		t.Fatalf("resolve notes as beta = %q, %v; want agent:beta:notes", key, err)
	}
	beta := api.Operator().ActingAs("agent:beta:main")
	res, err := h.e.History(ctx, beta, api.HistoryRequest{SessionKey: "notes"})
	if err != nil || res.SessionKey != "agent:beta:notes" {
		t.Fatalf("history notes as beta = %+v, %v; want agent:beta:notes", res, err)
	}
	// The operator acts as the default agent's main session.
	if key, err := h.e.resolveRef(ctx, Requester{Operator: true}, "notes"); err != nil || key != "agent:main:notes" {
		t.Fatalf("resolve notes as operator = %q, %v", key, err)
	}
}

func TestUnknownAgentIsTheSameErrorEverywhere(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	op := api.Operator()
	const want = `unknown agent id "ghost" in session key "agent:ghost:main" (configured: main, beta)`
	check := func(what string, err error) {
		t.Helper()
		if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), want) {
			t.Errorf("%s: err = %v (code %s), want %q", what, err, domain.ErrorCode(err), want)
		}
	}
	_, err := h.e.History(ctx, op, api.HistoryRequest{SessionKey: "agent:ghost:main"})
	check("history", err)
	_, err = h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:ghost:main", Message: "hi"})
	check("chat", err)
	_, err = h.e.ListSessions(ctx, op.ActingAs("agent:ghost:main"), api.ListRequest{})
	check("list as ghost", err)
	_, err = h.e.Patch(ctx, op, api.PatchRequest{Key: "agent:ghost:main", Label: api.SetValue("x")})
	check("patch", err)
	res, err := h.e.Send(ctx, op, api.SendRequest{SessionKey: "agent:ghost:main", Message: "hi"})
	if err != nil || res.Status != "error" || res.Error != want || res.RunID != "" {
		t.Errorf("send: %+v, %v; want status error %q without a runId", res, err, want)
	}
}

// TestSessionIDInAnyCase: a sessionId finds its session whatever the case
// of its hex letters, on every lookup by id (history and send references,
// sessions.resolve {sessionId}).
func TestSessionIDInAnyCase(t *testing.T) {
	h := newHarness(t, nil, twoAgents)
	ctx := context.Background()
	h.chat("main", "hello")
	s, err := h.e.Session(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionID != strings.ToLower(s.SessionID) {
		t.Fatalf("sessionId %q is not lower case", s.SessionID)
	}
	op := api.Operator()
	upper := strings.ToUpper(s.SessionID)
	mixed := strings.ToUpper(s.SessionID[:18]) + s.SessionID[18:]
	for name, id := range map[string]string{"lower": s.SessionID, "upper": upper, "mixed": mixed, "padded upper": " " + upper + " "} {
		t.Run(name, func(t *testing.T) {
			if res, err := h.e.History(ctx, op, api.HistoryRequest{SessionKey: id}); err != nil || res.SessionID != s.SessionID {
				t.Errorf("history %q = %+v, %v", id, res.SessionID, err)
			}
			if r, err := h.e.Resolve(ctx, op, api.ResolveRequest{SessionID: strings.TrimSpace(id)}); err != nil || r.Key != s.Key {
				t.Errorf("resolve {sessionId: %q} = %+v, %v; want %s", id, r, err, s.Key)
			}
			out := h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"`+id+`","message":"ping","timeoutSeconds":0}`)
			if res := sendResult(t, out); res.Status != "accepted" || res.SessionKey != "main" {
				t.Errorf("send to %q = %+v", id, res)
			}
		})
	}
}
