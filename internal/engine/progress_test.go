package engine

import (
	"context"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestProgressOfRunningChild: while a child is in its first model call,
// its parent's subagents list, its session row and UsageStatus show its
// progress (step 1, phase model); the progress event went out; once it
// ends, the record is gone.
func TestProgressOfRunningChild(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		{When: config.ScriptWhen{Message: "^crawl$"}, Reply: str("crawled"), DelayMs: 60_000},
	}, nil)
	events, stop := h.e.Subscribe(1024)
	defer stop()
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"crawl","label":"slow","budget":{"tokens":9000}}`))
	var kids []api.ChildRow
	h.waitFor("the child's progress", func() bool {
		var err error
		kids, err = h.e.Children(context.Background(), "agent:main:main")
		if err != nil {
			t.Fatal(err)
		}
		return len(kids) == 1 && kids[0].Progress != nil && kids[0].Progress.Phase == "model"
	})
	p := kids[0].Progress
	if p.Step != 1 || p.RunID != res.RunID || p.SessionKey != res.ChildSessionKey || kids[0].Budget == nil || kids[0].Budget.Tokens != 9000 || kids[0].Usage == nil {
		t.Fatalf("child row = %+v, progress %+v", kids[0], p)
	}
	st, err := h.e.UsageStatus(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Children) != 1 || st.Children[0].Progress == nil || st.Progress != nil {
		t.Fatalf("usage status = %+v", st)
	}
	card, err := h.e.SessionStatus(context.Background(), api.Operator(), api.StatusRequest{SessionKey: "agent:main:main"})
	if err != nil || card.Usage == nil || card.ChildrenRunning != 1 || len(card.RunningChildren) != 1 ||
		card.RunningChildren[0].Progress == nil || card.RunningChildren[0].Progress.Phase != "model" {
		t.Fatalf("session_status card = %+v, %v", card, err)
	}
	row, err := h.e.GetSession(context.Background(), api.Operator(), res.ChildSessionKey)
	if err != nil || row.Progress == nil || row.Progress.Phase != "model" || row.Budget == nil {
		t.Fatalf("child session row = %+v, %v", row, err)
	}
	saw := false
	for !saw {
		select {
		case ev := <-events:
			saw = ev.Kind == domain.EventProgress && ev.Progress != nil && ev.Progress.RunID == res.RunID
		default:
			t.Fatal("no progress event was published")
		}
	}
	if _, err := h.e.cancelRun(context.Background(), res.RunID); err != nil {
		t.Fatal(err)
	}
	h.endedRun(res.RunID)
	if _, ok := h.e.rt.SessionProgress(res.ChildSessionKey); ok {
		t.Fatal("an ended run keeps its progress record")
	}
}
