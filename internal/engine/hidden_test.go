package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestHiddenSessionAnswersAsUnknown checks that a non-operator requester
// naming a session it may not see by sessionId or by label gets, on
// sessions_history and sessions_send, byte for byte the answer it gets
// once that session no longer exists; naming it by key keeps the
// reference's forbidden answer.
func TestHiddenSessionAnswersAsUnknown(t *testing.T) {
	h := newHarness(t, nil, nil) // tree visibility: research is not main's
	ctx := context.Background()
	asMain := api.Operator().ActingAs("agent:main:main")
	h.chat("agent:main:main", "hello")
	h.labelled(research, "lab")
	s, err := h.e.Session(ctx, research)
	if err != nil {
		t.Fatal(err)
	}
	id := s.SessionID

	type answers struct{ historyByID, sendByID, sendByLabel, toolHistoryByID, toolSendByID, toolSendByLabel string }
	ask := func() answers {
		var a answers
		_, err := h.e.History(ctx, asMain, api.HistoryRequest{SessionKey: id})
		a.historyByID = domain.ErrorCode(err) + ": " + domain.ErrorMessage(err)
		res, err := h.e.Send(ctx, asMain, api.SendRequest{SessionKey: id, Message: "hi"})
		a.sendByID = res.Status + ": " + res.Error + errString(err)
		res, err = h.e.Send(ctx, asMain, api.SendRequest{Label: "lab", Message: "hi"})
		a.sendByLabel = res.Status + ": " + res.Error + errString(err)
		a.toolHistoryByID = string(h.e.CallTool(ctx, asMain, api.ToolSessionsHistory, []byte(`{"sessionKey":"`+id+`"}`)).JSON())
		a.toolSendByID = string(h.e.CallTool(ctx, asMain, api.ToolSessionsSend, []byte(`{"sessionKey":"`+id+`","message":"hi"}`)).JSON())
		a.toolSendByLabel = string(h.e.CallTool(ctx, asMain, api.ToolSessionsSend, []byte(`{"label":"lab","message":"hi"}`)).JSON())
		return a
	}

	hidden := ask()
	// By key the session stays a forbidden target, as in the reference.
	if _, err := h.e.History(ctx, asMain, api.HistoryRequest{SessionKey: research}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Errorf("history by key: %v, want forbidden", err)
	}
	if res, err := h.e.Send(ctx, asMain, api.SendRequest{SessionKey: research, Message: "hi"}); err != nil || res.Status != "forbidden" {
		t.Errorf("send by key: %+v, %v; want forbidden", res, err)
	}

	if _, err := h.e.Delete(ctx, api.Operator(), api.DeleteRequest{Key: research}); err != nil {
		t.Fatal(err)
	}
	unknown := ask()
	if hidden != unknown {
		t.Fatalf("hidden session answers differ from an unknown one:\nhidden:  %+v\nunknown: %+v", hidden, unknown)
	}
	if hidden.historyByID != "not_found: Session not found: "+id+" (use the full sessionKey from sessions_list)" ||
		hidden.sendByLabel != "error: No session found with label: lab" {
		t.Errorf("answers = %+v", hidden)
	}
	runs, err := h.st.ListRuns(ctx, domain.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Kind == domain.RunKindSend {
			t.Errorf("a refused send started run %s on %s", r.ID, r.SessionKey)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return " (err " + err.Error() + ")"
}

// TestSandboxedSessionIDAnswersForbidden checks the reference's answer for
// a sandboxed requester (restrictToSpawned) naming a sessionId outside its
// tree: {status:"forbidden", "Session not visible from this sandboxed agent
// session: <id>"}, the same for a hidden session and a missing one, while
// its own child's sessionId still resolves.
func TestSandboxedSessionIDAnswersForbidden(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) {
		c.Tools.Sessions.Visibility = "all"
		c.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "box", Sandbox: &config.AgentSandbox{Mode: config.SandboxAll}}}
	})
	ctx := context.Background()
	h.chat("agent:box:other", "hello")
	other, err := h.e.Session(ctx, "agent:box:other")
	if err != nil {
		t.Fatal(err)
	}
	box := Requester{SessionKey: "agent:box:main"}
	const missing = "11111111-2222-4333-8444-555555555555"
	for _, id := range []string{other.SessionID, missing} {
		var got map[string]any
		if err := json.Unmarshal(h.call(box, api.ToolSessionsHistory, `{"sessionKey":"`+id+`"}`).JSON(), &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"status": "forbidden", "error": "Session not visible from this sandboxed agent session: " + id}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("history of %s:\n got %v\nwant %v", id, got, want)
		}
	}
	// The operator (and an unsandboxed requester) still get not_found.
	if _, err := h.e.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: missing}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Errorf("operator history of a missing id: %v, want not_found", err)
	}
	child := spawnResult(t, h.call(box, api.ToolSessionsSpawn, `{"task":"t"}`))
	row, err := h.e.Session(ctx, child.ChildSessionKey)
	if err != nil {
		t.Fatal(err)
	}
	if res := h.call(box, api.ToolSessionsHistory, `{"sessionKey":"`+row.SessionID+`"}`); res.IsError {
		t.Errorf("history of its own child by sessionId: %s", res.JSON())
	}
}
