package query

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// TestStatusCard: a session not created yet shows its defaults without a
// sessionId; a live one counts its queued runs and names its oldest
// running run as the active one, its age from the reader's clock.
func TestStatusCard(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := time.UnixMilli(100_000)
	r := Reader{Store: st, Config: config.Default, Now: func() time.Time { return now }}
	v := StatusView{
		Key: "main",
		NewSession: func(key string) (domain.Session, error) {
			return domain.Session{Key: key, SessionID: "drawn", AgentID: "main", UpdatedAt: 5}, nil
		},
		Model:   func(domain.Session) string { return "openai/gpt-test" },
		Channel: func(domain.Session) string { return "webchat" },
		Usage: func(context.Context, string) (api.UsageStatus, error) {
			return api.UsageStatus{}, nil
		},
	}

	card, err := r.StatusCard(ctx, "agent:main:main", v)
	if err != nil {
		t.Fatal(err)
	}
	if card.SessionID != "" || card.LastActivity != 0 || card.AgentID != "main" || card.SessionKey != "main" {
		t.Fatalf("card of a session not created: %+v", card)
	}
	if card.ModelProvider != "openai" || card.ActiveRun != nil || card.QueuedRuns != 0 {
		t.Fatalf("card of a session not created: provider %q, active %v, queued %d", card.ModelProvider, card.ActiveRun, card.QueuedRuns)
	}

	s := domain.Session{Key: "agent:main:main", SessionID: "s1", AgentID: "main", Kind: "direct", UpdatedAt: 7}
	runs := []domain.Run{
		{ID: "r-new", SessionKey: s.Key, SessionID: "s1", AgentID: "main", Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunRunning, StartedAt: 90_000},
		{ID: "r-old", SessionKey: s.Key, SessionID: "s1", AgentID: "main", Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunRunning, StartedAt: 40_000},
		{ID: "r-q1", SessionKey: s.Key, SessionID: "s1", AgentID: "main", Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunQueued},
		{ID: "r-q2", SessionKey: s.Key, SessionID: "s1", AgentID: "main", Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunQueued},
		{ID: "r-done", SessionKey: s.Key, SessionID: "s1", AgentID: "main", Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunOK, StartedAt: 1},
	}
	if err := st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(s); err != nil {
			return err
		}
		for _, run := range runs {
			if _, _, err := tx.CreateRun(run); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	card, err = r.StatusCard(ctx, s.Key, v)
	if err != nil {
		t.Fatal(err)
	}
	if card.SessionID != "s1" || card.LastActivity != 7 || card.QueuedRuns != 2 {
		t.Fatalf("card: sessionId %q, lastActivity %d, queued %d", card.SessionID, card.LastActivity, card.QueuedRuns)
	}
	if card.ActiveRun == nil || card.ActiveRun.RunID != "r-old" || card.ActiveRun.AgeMs != 60_000 {
		t.Fatalf("active run %+v, want r-old aged 60000 ms", card.ActiveRun)
	}
}
