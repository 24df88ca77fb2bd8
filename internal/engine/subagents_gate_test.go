package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// subagents through the gate (docs/tools.md): list shows the requester's
// children; cancel needs a target (a runId, a childSessionKey or "all"),
// answers not found for a target that is none of its children, says
// "already ended" for a child that ended and changes nothing, and with
// "all" cancels every running child and only those.
func TestSubagentsListAndCancel(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: ":subagent:", Message: "^slow"}, Reply: str("late"), DelayMs: 60_000},
		rule(config.ScriptWhen{}, "done"),
	}, nil)
	ctx := context.Background()
	as := api.Principal{Name: "t", Scopes: api.ScopeRead | api.ScopeWrite, As: "main"}

	quick := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"quick"}`))
	if r, err := h.e.waitRun(ctx, quick.RunID, 10*time.Second); err != nil || r.Status != domain.RunOK {
		t.Fatalf("quick child = %+v, %v", r, err)
	}
	slow1 := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"slow one"}`))
	slow2 := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"slow two"}`))

	list, err := h.e.Subagents(ctx, as, api.SubagentsRequest{})
	if err != nil || list.Action != "list" || len(list.Subagents) != 3 {
		t.Fatalf("list = %+v, %v; want the three children", list, err)
	}

	if _, err := h.e.Subagents(ctx, as, api.SubagentsRequest{Action: "cancel", Target: "  "}); domain.ErrorCode(err) != domain.CodeInvalid ||
		!strings.Contains(err.Error(), `a runId, a childSessionKey or "all"`) {
		t.Fatalf("cancel without a target = %v, want invalid naming what a target is", err)
	}
	if _, err := h.e.Subagents(ctx, as, api.SubagentsRequest{Action: "cancel", Target: "agent:main:subagent:nobody"}); domain.ErrorCode(err) != domain.CodeNotFound ||
		!strings.Contains(err.Error(), "no sub-agent of this session matches") {
		t.Fatalf("cancel of no child = %v, want not found", err)
	}
	readOnly := api.Principal{Name: "ro", Scopes: api.ScopeRead, As: "main"}
	if _, err := h.e.Subagents(ctx, readOnly, api.SubagentsRequest{Action: "cancel", Target: "all"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("cancel with a read-only token = %v, want forbidden", err)
	}
	if _, err := h.e.Subagents(ctx, readOnly, api.SubagentsRequest{}); err != nil {
		t.Fatalf("list with a read-only token = %v", err)
	}

	ended, err := h.e.Subagents(ctx, as, api.SubagentsRequest{Action: "cancel", Target: quick.RunID})
	if err != nil || len(ended.Cancelled) != 0 || ended.Note != "already ended: ok" {
		t.Fatalf("cancel of an ended child = %+v, %v; want nothing cancelled, already ended: ok", ended, err)
	}

	all, err := h.e.Subagents(ctx, as, api.SubagentsRequest{Action: "cancel", Target: "all"})
	if err != nil || all.Note != "" {
		t.Fatalf("cancel all = %+v, %v", all, err)
	}
	got := slices.Sorted(slices.Values(all.Cancelled))
	want := slices.Sorted(slices.Values([]string{slow1.RunID, slow2.RunID}))
	if !slices.Equal(got, want) {
		t.Fatalf("cancel all cancelled %v, want the running children %v", got, want)
	}
	for _, id := range want {
		if r, err := h.e.waitRun(ctx, id, 10*time.Second); err != nil || r.Status != domain.RunCancelled {
			t.Fatalf("child %s after cancel all = %+v, %v", id, r.Status, err)
		}
	}
	if r, _ := h.st.GetRun(ctx, quick.RunID); r.Status != domain.RunOK {
		t.Fatalf("the ended child became %s", r.Status)
	}
	again, err := h.e.Subagents(ctx, as, api.SubagentsRequest{Action: "cancel", Target: "all"})
	if err != nil || len(again.Cancelled) != 0 || again.Note != "" {
		t.Fatalf("cancel all with none running = %+v, %v; want nothing cancelled, no note", again, err)
	}
}

// A credential bound to a session acts as that session: naming that
// session as the requester is allowed, naming another is forbidden.
func TestBoundCredentialCannotActAsAnotherSession(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	ctx := context.Background()
	h.chat("agent:main:mine", "hello")
	same := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:mine", As: "agent:main:mine"}
	if _, err := h.e.Subagents(ctx, same, api.SubagentsRequest{}); err != nil {
		t.Errorf("bound token acting as its own session = %v", err)
	}
	other := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:mine", As: "agent:main:main"}
	if _, err := h.e.Subagents(ctx, other, api.SubagentsRequest{}); domain.ErrorCode(err) != domain.CodeForbidden ||
		!strings.Contains(err.Error(), "this credential acts as session agent:main:mine; requester agent:main:main is not allowed") {
		t.Fatalf("bound token acting as another session = %v, want forbidden", err)
	}
	if _, err := h.e.Send(ctx, other, api.SendRequest{SessionKey: "agent:main:mine", Message: "x"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("send as another session = %v, want forbidden", err)
	}
}
