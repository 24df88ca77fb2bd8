package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestConcurrentDuplicateResetChatIsOneTurn proves that concurrent
// duplicates of "/reset <text>" with one idempotency key are one piece of
// work: one run, every caller answered with its id, and that run not
// cancelled by a duplicate's reset. The key was looked up before the
// reset, so a duplicate that looked while the first call was resetting
// reset the session again — stopping the run the first call had started —
// and then answered with that cancelled run.
func TestConcurrentDuplicateResetChatIsOneTurn(t *testing.T) {
	const n = 8
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Session: "agent:main:dup"}, Reply: str("slow"), DelayMs: 60_000},
	}, nil)
	ctx := context.Background()
	runs := make([]api.ChatResult, n)
	errs := make([]error, n)
	atOnce(n, func(i int) {
		runs[i], errs[i] = h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "agent:main:dup",
			Message: "/reset hello", IdempotencyKey: "dup-1", TimeoutSeconds: 600})
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		if runs[i].Run.ID != runs[0].Run.ID {
			t.Fatalf("caller %d got run %s, caller 0 run %s: want one run", i, runs[i].Run.ID, runs[0].Run.ID)
		}
	}
	run, err := h.st.GetRun(ctx, runs[0].Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != domain.RunQueued && run.Status != domain.RunRunning {
		t.Fatalf("the one run is %s (%s), want it still going: a duplicate's reset stopped it", run.Status, run.Error)
	}
	s, err := h.st.GetSession(ctx, "agent:main:dup")
	if err != nil {
		t.Fatal(err)
	}
	if run.SessionID != "" && run.SessionID != s.SessionID {
		t.Fatalf("run is in generation %s, the session in %s: the session was reset after the run began", run.SessionID, s.SessionID)
	}
}

// TestConcurrentDuplicatesGetOneID proves the same idempotency key sent
// by many callers at once yields one piece of work on every keyed surface
// of the engine, and every caller is answered with its id.
func TestConcurrentDuplicatesGetOneID(t *testing.T) {
	const n = 10
	const target = "agent:main:target"
	asMain := api.Operator().ActingAs("agent:main:main")
	cases := []struct {
		name string
		call func(h *harness) (string, error)
	}{
		{name: "chat", call: func(h *harness) (string, error) {
			r, err := h.e.Chat(context.Background(), api.Operator(), api.ChatRequest{SessionKey: target, Message: "hi", IdempotencyKey: "k"})
			return r.Run.ID, err
		}},
		{name: "sessions_send", call: func(h *harness) (string, error) {
			zero := 0
			r, err := h.e.Send(context.Background(), asMain, api.SendRequest{SessionKey: target, Message: "hi", IdempotencyKey: "k", TimeoutSeconds: &zero})
			if err == nil && r.Status != "accepted" {
				err = fmt.Errorf("status %s: %s", r.Status, r.Error)
			}
			return r.RunID, err
		}},
		{name: "send (deliver)", call: func(h *harness) (string, error) {
			r, err := h.e.Deliver(context.Background(), api.Operator(), api.DeliverRequest{SessionKey: target, To: "someone", Message: "hi", IdempotencyKey: "k"})
			return r.MessageID, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, []config.ScriptRule{
				{When: config.ScriptWhen{Session: target}, Reply: str("slow"), DelayMs: 60_000},
			}, func(c *config.Config) { c.Tools.Sessions.Visibility = "all" })
			ids := make([]string, n)
			errs := make([]error, n)
			atOnce(n, func(i int) {
				ids[i], errs[i] = tc.call(h)
			})
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("caller %d: %v", i, errs[i])
				}
				if ids[i] == "" || ids[i] != ids[0] {
					t.Fatalf("caller %d answered %q, caller 0 %q: want one id", i, ids[i], ids[0])
				}
			}
			runs, err := h.st.ListRuns(context.Background(), domain.RunQuery{SessionKey: target})
			if err != nil {
				t.Fatal(err)
			}
			if tc.name != "send (deliver)" && len(runs) != 1 {
				t.Fatalf("%d runs on %s, want 1", len(runs), target)
			}
			msgs, err := h.st.ReadMessages(context.Background(), target, domain.MessageQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) > 1 {
				t.Fatalf("%d messages in %s, want at most 1", len(msgs), target)
			}
		})
	}
}
