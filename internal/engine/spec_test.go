package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runspec"
)

// A stored run spec that does not decode ends the run visibly (status
// error, the reason in its error), never a run carried out on a zero spec.
func TestUndecodableRunSpecEndsTheRunWithAnError(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	key := "agent:main:main"
	run, _, err := h.e.rt.Submit(ctx, domain.Run{SessionKey: key, AgentID: "main", Kind: domain.RunKindSend,
		Lane: domain.LaneNested, Spec: json.RawMessage(`{"a2a":"not an object"}`)}, func(tx domain.Tx) error {
		_, _, err := h.e.sessions.Ensure(tx, key, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.e.waitRun(ctx, run.ID, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != domain.RunError || !strings.Contains(done.Error, "stored run spec does not decode") {
		t.Fatalf("run = %s %q, want error naming the spec", done.Status, done.Error)
	}
	if _, err := runspec.Decode(done); err == nil {
		t.Fatal("decodeSpec accepted a spec of the wrong shape")
	}
}
