package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Runs through the gate: an operator reads, waits on and cancels any run;
// a session-bound token is told that a run of a session it cannot see
// does not exist, and cannot cancel it; cancelling a run that already
// ended says so and changes nothing.
func TestRunsThroughTheGate(t *testing.T) {
	slow := 60_000
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Message: "^slow$"}, Reply: str("late"), DelayMs: slow},
		rule(config.ScriptWhen{}, "answer"),
	}, nil)
	ctx := context.Background()
	op := api.Operator()
	bound := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:elsewhere"}
	done := h.chat("agent:main:main", "hello")

	got, err := h.e.GetRun(ctx, op, done.ID)
	if err != nil || got.ID != done.ID || got.Status != domain.RunOK {
		t.Fatalf("operator get = %+v, %v", got, err)
	}
	for name, call := range map[string]func() error{
		"get": func() error { _, err := h.e.GetRun(ctx, bound, done.ID); return err },
		"wait": func() error {
			_, err := h.e.WaitRun(ctx, bound, api.WaitRequest{RunID: done.ID, Timeout: time.Second})
			return err
		},
		"cancel": func() error { _, err := h.e.CancelRun(ctx, bound, done.ID); return err },
	} {
		if err := call(); domain.ErrorCode(err) != domain.CodeNotFound || !strings.Contains(err.Error(), "run not found: "+done.ID) {
			t.Errorf("bound %s of a hidden run = %v, want run not found", name, err)
		}
	}
	res, err := h.e.CancelRun(ctx, op, done.ID)
	if err != nil || !res.AlreadyEnded || res.Cancelled || res.Status != domain.RunOK {
		t.Fatalf("cancel of an ended run = %+v, %v; want already ended, ok", res, err)
	}

	started, err := h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:main", Message: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	waited, err := h.e.WaitRun(ctx, op, api.WaitRequest{RunID: started.Run.ID, Timeout: 50 * time.Millisecond})
	if err != nil || domain.RunTerminal(waited.Status) {
		t.Fatalf("short wait on a running run = %s, %v; want it still going", waited.Status, err)
	}
	res, err = h.e.CancelRun(ctx, op, started.Run.ID)
	if err != nil || !res.Cancelled || res.AlreadyEnded || res.Status != domain.RunCancelled {
		t.Fatalf("cancel of a running run = %+v, %v; want cancelled", res, err)
	}
	end, err := h.e.WaitRun(ctx, op, api.WaitRequest{RunID: started.Run.ID, Timeout: time.Second})
	if err != nil || end.Status != domain.RunCancelled {
		t.Fatalf("run after cancel = %s, %v", end.Status, err)
	}
}

// Operator-only reads refuse a session-bound token, and visibility is the
// rule the event stream filters with: a bound token sees its own session
// and not another's; SubscribeKey answers a hidden key as not found.
func TestOperatorReadsAndVisibility(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{}, "answer")}, nil)
	ctx := context.Background()
	h.chat("agent:main:main", "one")
	h.chat("agent:main:other", "two")
	bound := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:other"}

	rep, err := h.e.UsageReport(ctx, api.Operator(), api.UsageRequest{By: "session"})
	if err != nil || len(rep.Groups) != 2 || rep.Total.Runs != 2 {
		t.Fatalf("usage report = %+v, %v; want two sessions, two runs", rep, err)
	}
	if _, err := h.e.UsageReport(ctx, bound, api.UsageRequest{By: "session"}); err == nil {
		t.Fatal("a bound token read the usage report")
	}
	if _, err := h.e.Outbox(ctx, api.Operator(), api.OutboxRequest{}); err != nil {
		t.Fatalf("operator outbox: %v", err)
	}
	if _, err := h.e.Outbox(ctx, bound, api.OutboxRequest{}); err == nil {
		t.Fatal("a bound token listed the outbox")
	}

	if !h.e.Visible(ctx, bound, "agent:main:other") || h.e.Visible(ctx, bound, "agent:main:main") {
		t.Fatal("a bound token's visibility is not its own session only")
	}
	if !h.e.Visible(ctx, api.Operator(), "agent:main:main") {
		t.Fatal("the operator cannot see a session")
	}
	if key, err := h.e.SubscribeKey(ctx, bound, "agent:main:other"); err != nil || key != "agent:main:other" {
		t.Fatalf("subscribe to its own session = %q, %v", key, err)
	}
	if _, err := h.e.SubscribeKey(ctx, bound, "agent:main:main"); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("subscribe to a hidden session = %v, want not found", err)
	}
	// Before its first chat a session may be subscribed to by its key.
	if key, err := h.e.SubscribeKey(ctx, api.Operator(), "agent:main:later"); err != nil || key != "agent:main:later" {
		t.Fatalf("subscribe before the first chat = %q, %v", key, err)
	}
}
