package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// assertSettled fails unless no run is live and no outbox item is due.
func assertSettled(t *testing.T, h *harness) {
	t.Helper()
	live, err := h.st.ListRuns(t.Context(), domain.RunQuery{Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		t.Fatal(err)
	}
	if len(live) > 0 {
		t.Fatalf("Idle returned with %d live runs (first: %s %s on %s)", len(live), live[0].Kind, live[0].Status, live[0].SessionKey)
	}
	due, err := h.st.ListOutbox(t.Context(), domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}, DueBefore: time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	if len(due) > 0 {
		t.Fatalf("Idle returned with %d due outbox items (first: %s)", len(due), due[0].Kind)
	}
}

func idleWithin(t *testing.T, h *harness) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	if err := h.e.Idle(ctx); err != nil {
		t.Fatalf("Idle: %v", err)
	}
}

func TestIdle(t *testing.T) {
	tests := []struct {
		name  string
		rules []config.ScriptRule
		start func(t *testing.T, h *harness)
		check func(t *testing.T, h *harness)
	}{
		{
			name:  "fresh engine",
			start: func(t *testing.T, h *harness) {},
			check: func(t *testing.T, h *harness) {},
		},
		{
			name: "reply-back loop and announce",
			rules: []config.ScriptRule{
				toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^ask research (.*)$"}, "sessions_send",
					map[string]any{"sessionKey": research, "message": "$1", "timeoutSeconds": 0}),
				rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent reply step:"}, "REPLY_SKIP"),
				rule(config.ScriptWhen{Session: "research$", System: "Agent-to-agent announce step:"}, "all done"),
				rule(config.ScriptWhen{Session: "research$"}, "research answer"),
				rule(config.ScriptWhen{Session: ":main:main$", System: "Agent-to-agent reply step:"}, "thanks"),
			},
			start: func(t *testing.T, h *harness) {
				if _, err := h.e.chat(t.Context(), api.ChatRequest{SessionKey: "main", Message: "ask research the weather"}); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, h *harness) {
				ann := runsOf(h, research, domain.RunKindAnnounce)
				if len(ann) != 1 || ann[0].Status != domain.RunOK {
					t.Fatalf("announce runs = %+v, want one ok", ann)
				}
				items := outboxOf(h, domain.OutboxAnnounce)
				if len(items) != 1 || items[0].Status != domain.OutboxDelivered {
					t.Fatalf("announce outbox = %+v, want one delivered", items)
				}
			},
		},
		{
			name: "spawned child and its announce",
			start: func(t *testing.T, h *harness) {
				if _, err := h.e.spawn(t.Context(), Requester{Operator: true}, api.SpawnRequest{Task: "count to three"}); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, h *harness) {
				inbound := runsOf(h, "agent:main:main", domain.RunKindInbound)
				if len(inbound) != 1 || inbound[0].Status != domain.RunOK {
					t.Fatalf("inbound announce runs = %+v, want one ok", inbound)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.rules, agentVisibility)
			tt.start(t, h)
			idleWithin(t, h)
			assertSettled(t, h)
			tt.check(t, h)
		})
	}
}

func TestIdleEndsWithContext(t *testing.T) {
	slow := "late"
	h := newHarness(t, []config.ScriptRule{{When: config.ScriptWhen{Message: "slow"}, Reply: &slow, DelayMs: 60_000}}, nil)
	res, err := h.e.chat(t.Context(), api.ChatRequest{SessionKey: "main", Message: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if err := h.e.Idle(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Idle = %v, want context.DeadlineExceeded while a run is in flight", err)
	}
	if _, err := h.e.cancelRun(t.Context(), res.Run.ID); err != nil {
		t.Fatal(err)
	}
	idleWithin(t, h)
	assertSettled(t, h)
}
