package budget

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestAttachAndStatus: rows get their usage, a budget only where one is
// set, and the live progress only of a session with a running run; the
// status of a key reads the same.
func TestAttachAndStatus(t *testing.T) {
	l := ledger(chain())
	l.Progress = func(key string) (domain.Progress, bool) {
		return domain.Progress{SessionKey: key, Step: 2}, key == "mid"
	}
	rows := []domain.Session{{Key: "root"}, {Key: "mid"}, {Key: "leaf"}, {Key: "none"}}
	out := make([]api.SessionRow, len(rows))
	if err := l.Attach(t.Context(), out, rows); err != nil {
		t.Fatal(err)
	}
	if out[0].Usage == nil || out[0].Usage.Tree.InputTokens != 400 || out[0].Budget == nil || out[0].Budget.Tokens != 1000 || out[0].Progress != nil {
		t.Fatalf("root row: usage %+v budget %+v progress %+v", out[0].Usage, out[0].Budget, out[0].Progress)
	}
	if out[1].Progress == nil || out[1].Progress.Step != 2 {
		t.Fatalf("mid row: progress %+v, want step 2", out[1].Progress)
	}
	if out[2].Budget != nil || out[3].Usage == nil || out[3].Usage.Tree.InputTokens != 0 {
		t.Fatalf("leaf budget %+v, unknown usage %+v", out[2].Budget, out[3].Usage)
	}
	st, err := l.Status(t.Context(), "mid")
	if err != nil {
		t.Fatal(err)
	}
	if st.Usage.Tree.InputTokens != 100 || st.Budget == nil || st.Budget.Tokens != 300 || st.Progress == nil {
		t.Fatalf("status of mid: %+v", st)
	}
	if err := ledger(chain()).Attach(t.Context(), out[:1], rows[:1]); err != nil {
		t.Fatalf("a ledger without Progress: %v", err)
	}
}
