package engine

import (
	"context"
	"sync"
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
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			runs[i], errs[i] = h.e.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: "agent:main:dup",
				Message: "/reset hello", IdempotencyKey: "dup-1", TimeoutSeconds: 600})
		}()
	}
	close(start)
	wg.Wait()
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
