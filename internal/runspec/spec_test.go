package runspec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runs"
)

// A chat run plans from the fields it uses: its spec's other parts are
// not decoded (they are the runtime's, which decodes them itself), and a
// run kind with follow-up work still has its whole spec checked.
func TestDecodePlanSpec(t *testing.T) {
	chat := domain.Run{ID: "r1", Kind: domain.RunKindChat,
		Spec: json.RawMessage(`{"userMessage":{"role":"user","content":"hi"},"system":"s","model":"m","thinking":"low","chain":["a"]}`)}
	got, err := DecodePlan(chat)
	if err != nil || got.System != "s" || got.Model != "m" || got.Thinking != "low" || len(got.Chain) != 1 || got.Chain[0] != "a" {
		t.Fatalf("DecodePlan(chat) = %+v, %v", got, err)
	}
	if _, err := DecodePlan(domain.Run{ID: "r2", Kind: domain.RunKindChat, Spec: json.RawMessage(`{"system":`)}); err == nil {
		t.Fatal("decodePlanSpec accepted JSON that does not parse")
	}
	send := domain.Run{ID: "r3", Kind: domain.RunKindSend, Spec: json.RawMessage(`{"a2a":"not an object"}`)}
	if _, err := DecodePlan(send); err == nil || !strings.Contains(err.Error(), "stored run spec does not decode") {
		t.Fatalf("DecodePlan(send with a bad a2a) = %v, want the spec error", err)
	}
}

// The runtime's part of a chat's spec, handed over in memory (SubmitSpec),
// is what the runtime would decode from the stored spec.
func TestRuntimeSpecMatchesTheStoredSpec(t *testing.T) {
	spec := Spec{
		Spec: runs.Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent("hi there"),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceExternalUser, SourceChannel: "webchat"}}},
		System: "extra", Model: "script", Fingerprint: "f", Chain: []string{"agent:main:a"},
	}
	raw, err := Encode(spec)
	if err != nil {
		t.Fatal(err)
	}
	var decoded runs.Spec
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	if got := spec.Runtime(); !reflect.DeepEqual(got, decoded) {
		t.Fatalf("runtimeSpec() = %+v (message %+v), decoding the stored spec gives %+v (message %+v)",
			got, *got.UserMessage, decoded, *decoded.UserMessage)
	}
}
