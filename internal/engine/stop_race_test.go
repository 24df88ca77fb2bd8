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

// TestDeleteOrResetDuringATurn proves a turn stopped by sessions.delete or
// sessions.reset writes nothing after them: its cancel is asynchronous (the
// run ends on its own goroutine after the delete or reset committed), and
// that end must neither bring a deleted session back nor put the stopped
// turn into the new generation.
func TestDeleteOrResetDuringATurn(t *testing.T) {
	cases := []struct {
		name  string
		stop  func(h *harness, key string) error
		check func(t *testing.T, h *harness, key string, before domain.Session)
	}{
		{name: "delete", stop: func(h *harness, key string) error {
			_, err := h.e.Delete(context.Background(), api.Operator(), api.DeleteRequest{Key: key})
			return err
		}, check: func(t *testing.T, h *harness, key string, _ domain.Session) {
			if s, err := h.st.GetSession(context.Background(), key); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("after delete and the turn's end: session %+v, %v; want it gone", s, err)
			}
		}},
		{name: "reset", stop: func(h *harness, key string) error {
			_, err := h.e.Reset(context.Background(), api.Operator(), api.ResetRequest{Key: key})
			return err
		}, check: func(t *testing.T, h *harness, key string, before domain.Session) {
			s, err := h.st.GetSession(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if s.SessionID == before.SessionID {
				t.Fatalf("reset kept generation %s", s.SessionID)
			}
			msgs, err := h.st.ReadMessages(context.Background(), key, domain.MessageQuery{SessionID: s.SessionID})
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 0 {
				t.Fatalf("the new generation holds %d messages of the stopped turn: %+v", len(msgs), msgs)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const key = "agent:main:busy"
			h := newHarness(t, []config.ScriptRule{
				{When: config.ScriptWhen{Session: key}, Reply: str("slow"), DelayMs: 60_000},
			}, nil)
			res, err := h.e.Chat(context.Background(), api.Operator(), api.ChatRequest{SessionKey: key, Message: "work"})
			if err != nil {
				t.Fatal(err)
			}
			h.waitFor("the turn to run", func() bool {
				r, err := h.st.GetRun(context.Background(), res.Run.ID)
				return err == nil && r.Status == domain.RunRunning
			})
			before, err := h.st.GetSession(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.stop(h, key); err != nil {
				t.Fatal(err)
			}
			r, err := h.e.waitRun(context.Background(), res.Run.ID, 10*time.Second)
			if err != nil || !domain.RunTerminal(r.Status) {
				t.Fatalf("the turn did not end: %+v, %v", r, err)
			}
			tc.check(t, h, key, before)
		})
	}
}
