package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestLabelStaysUniqueUnderConcurrentSetters proves "label already in
// use" holds when several sessions of one agent ask for the same label at
// once: the check read committed rows while the writer batched the others'
// uncommitted writes, so every caller could see the label free and all of
// them got it.
func TestLabelStaysUniqueUnderConcurrentSetters(t *testing.T) {
	const n = 12
	cases := []struct {
		name string
		set  func(h *harness, key, label string) error
	}{
		{name: "sessions.patch", set: func(h *harness, key, label string) error {
			_, err := h.e.Patch(context.Background(), api.Operator(), api.PatchRequest{Key: key, Label: api.SetValue(label)})
			return err
		}},
		{name: "chat with label", set: func(h *harness, key, label string) error {
			_, err := h.e.Chat(context.Background(), api.Operator(), api.ChatRequest{SessionKey: key, Message: "hi", Label: label})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			const label = "shared"
			errs := make([]error, n)
			atOnce(len(errs), func(i int) {
				errs[i] = tc.set(h, fmt.Sprintf("agent:main:s%d", i), label)
			})
			won := 0
			for i, err := range errs {
				switch {
				case err == nil:
					won++
				case domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), "label already in use: "+label):
					t.Errorf("caller %d: %v, want label already in use", i, err)
				}
			}
			rows, err := h.st.ListSessions(context.Background(), domain.SessionQuery{Label: label, AgentIDs: []string{"main"}})
			if err != nil {
				t.Fatal(err)
			}
			if won != 1 || len(rows) != 1 {
				t.Fatalf("%d callers got label %q and %d sessions hold it, want 1 and 1", won, label, len(rows))
			}
		})
	}
}
