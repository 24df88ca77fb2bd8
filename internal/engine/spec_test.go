package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runs"
)

// A stored run spec that does not decode ends the run visibly (status
// error, the reason in its error), never a run carried out on a zero spec.
func TestUndecodableRunSpecEndsTheRunWithAnError(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	key := "agent:main:main"
	run, _, err := h.e.rt.Submit(ctx, domain.Run{SessionKey: key, AgentID: "main", Kind: domain.RunKindSend,
		Lane: domain.LaneNested, Spec: json.RawMessage(`{"a2a":"not an object"}`)}, func(tx domain.Tx) error {
		_, _, err := h.e.ensureSession(tx, key, nil)
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
	if _, err := decodeSpec(done); err == nil {
		t.Fatal("decodeSpec accepted a spec of the wrong shape")
	}
}

// A chat run plans from the fields it uses: its spec's other parts are
// not decoded (they are the runtime's, which decodes them itself), and a
// run kind with follow-up work still has its whole spec checked.
func TestDecodePlanSpec(t *testing.T) {
	chat := domain.Run{ID: "r1", Kind: domain.RunKindChat,
		Spec: json.RawMessage(`{"userMessage":{"role":"user","content":"hi"},"system":"s","model":"m","thinking":"low","chain":["a"]}`)}
	got, err := decodePlanSpec(chat)
	if err != nil || got.System != "s" || got.Model != "m" || got.Thinking != "low" || len(got.Chain) != 1 || got.Chain[0] != "a" {
		t.Fatalf("decodePlanSpec(chat) = %+v, %v", got, err)
	}
	if _, err := decodePlanSpec(domain.Run{ID: "r2", Kind: domain.RunKindChat, Spec: json.RawMessage(`{"system":`)}); err == nil {
		t.Fatal("decodePlanSpec accepted JSON that does not parse")
	}
	send := domain.Run{ID: "r3", Kind: domain.RunKindSend, Spec: json.RawMessage(`{"a2a":"not an object"}`)}
	if _, err := decodePlanSpec(send); err == nil || !strings.Contains(err.Error(), "stored run spec does not decode") {
		t.Fatalf("decodePlanSpec(send with a bad a2a) = %v, want the spec error", err)
	}
}

// The runtime's part of a chat's spec, handed over in memory (SubmitSpec),
// is what the runtime would decode from the stored spec.
func TestRuntimeSpecMatchesTheStoredSpec(t *testing.T) {
	spec := runSpec{
		Spec: runs.Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent("hi there"),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceExternalUser, SourceChannel: "webchat"}}},
		System: "extra", Model: "script", Fingerprint: "f", Chain: []string{"agent:main:a"},
	}
	raw, err := encodeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	var decoded runs.Spec
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	if got := spec.runtimeSpec(); !reflect.DeepEqual(got, decoded) {
		t.Fatalf("runtimeSpec() = %+v (message %+v), decoding the stored spec gives %+v (message %+v)",
			got, *got.UserMessage, decoded, *decoded.UserMessage)
	}
}
