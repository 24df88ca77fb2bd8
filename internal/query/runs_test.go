package query

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// TestRuns: under the default visibility (tree) a viewer lists the runs
// of its session and of those it spawned, not of a sibling; asking for the
// sibling's runs is refused; the operator lists all.
func TestRuns(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	const me, child, other = "agent:main:main", "agent:main:subagent:c", "agent:main:other"
	if err := st.Update(ctx, func(tx domain.Tx) error {
		for i, s := range []domain.Session{
			{Key: me, SessionID: "s-me"},
			{Key: child, SessionID: "s-child", SpawnedBy: me},
			{Key: other, SessionID: "s-other"},
		} {
			s.AgentID, s.Kind, s.UpdatedAt = "main", "direct", int64(i+1)
			if err := tx.PutSession(s); err != nil {
				return err
			}
			run := domain.Run{ID: "run-" + s.SessionID, SessionKey: s.Key, SessionID: s.SessionID, AgentID: "main",
				Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunOK, CreatedAt: int64(i + 1)}
			if _, _, err := tx.CreateRun(run); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r := Reader{Store: st, Config: config.Default, Now: time.Now}
	ids := func(runs []domain.Run) []string {
		var out []string
		for _, run := range runs {
			out = append(out, run.ID)
		}
		slices.Sort(out)
		return out
	}

	viewer := r.GuardFor(ctx, Viewer{Key: me, Agent: "main"})
	got, err := r.Runs(ctx, viewer, domain.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"run-s-child", "run-s-me"}; !slices.Equal(ids(got), want) {
		t.Fatalf("viewer lists %v, want %v", ids(got), want)
	}
	if _, err := r.Runs(ctx, viewer, domain.RunQuery{SessionKey: other}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("viewer asking for a sibling's runs: %v, want forbidden", err)
	}
	if got, err := r.Runs(ctx, viewer, domain.RunQuery{SessionKey: child}); err != nil || !slices.Equal(ids(got), []string{"run-s-child"}) {
		t.Fatalf("viewer asking for its child's runs: %v, %v", ids(got), err)
	}
	all, err := r.Runs(ctx, r.GuardFor(ctx, Viewer{Operator: true}), domain.RunQuery{})
	if err != nil || len(all) != 3 {
		t.Fatalf("operator lists %v, %v; want all 3", ids(all), err)
	}
}
