package runs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// Every edge of domain.RunEdges is taken by transition on a real store,
// and every other change is refused with nothing written.
func TestTransitionTakesLegalEdgesRefusesOthers(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Update(ctx, func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: "agent:main:t", AgentID: "main", SessionID: "s1", Kind: "other"})
	}); err != nil {
		t.Fatal(err)
	}
	n := 0
	// stored puts a run with status from in the store (nothing for new).
	stored := func(from domain.RunStatus) domain.Run {
		n++
		r := domain.Run{ID: fmt.Sprintf("r%d", n), SessionKey: "agent:main:t", AgentID: "main", Kind: domain.RunKindChat,
			Lane: domain.LaneMain, Attempt: 1, CreatedAt: 1, UpdatedAt: 1, Status: from}
		if from == domain.RunNew {
			return r
		}
		if err := st.Update(ctx, func(tx domain.Tx) error { _, _, err := tx.CreateRun(r); return err }); err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, from := range append([]domain.RunStatus{domain.RunNew}, domain.RunStatuses...) {
		for _, to := range domain.RunStatuses {
			name := string(from) + "→" + string(to)
			if from == domain.RunNew {
				name = "new→" + string(to)
			}
			t.Run(name, func(t *testing.T) {
				cur := stored(from)
				var next domain.Run
				err := st.Update(ctx, func(tx domain.Tx) error {
					var err error
					next, _, err = (&Runtime{}).transition(tx, cur, to, 50)
					return err
				})
				got, gerr := st.GetRun(ctx, cur.ID)
				if domain.RunEdgeLegal(from, to) {
					if err != nil {
						t.Fatalf("legal edge refused: %v", err)
					}
					if gerr != nil || got.Status != to || next.Status != to {
						t.Fatalf("stored %q (%v), returned %q; want %q", got.Status, gerr, next.Status, to)
					}
					if domain.RunTerminal(to) && got.EndedAt != 50 {
						t.Errorf("ended run has EndedAt %d, want 50", got.EndedAt)
					}
					if from == domain.RunRunning && to == domain.RunQueued && got.Attempt != 2 {
						t.Errorf("re-queued run has attempt %d, want 2", got.Attempt)
					}
					return
				}
				var illegal *domain.IllegalRunTransition
				if !errors.As(err, &illegal) || illegal.From != from || illegal.To != to {
					t.Fatalf("illegal edge: err %v, want an IllegalRunTransition from %q to %q", err, from, to)
				}
				switch {
				case from == domain.RunNew && !errors.Is(gerr, domain.ErrNotFound):
					t.Fatalf("refused creation stored a run: %+v %v", got, gerr)
				case from != domain.RunNew && (gerr != nil || got.Status != from || got.UpdatedAt != 1):
					t.Fatalf("refused edge changed the row: %+v %v", got, gerr)
				}
			})
		}
	}
}
