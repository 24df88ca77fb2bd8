package engine

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestChatEcho(t *testing.T) {
	h := newHarness(t, nil, nil)
	r := h.chat("main", "hello")
	if r.Status != domain.RunOK || r.Reply != "echo: hello" {
		t.Fatalf("run = %s %q (%s), want ok \"echo: hello\"", r.Status, r.Reply, r.Error)
	}
	msgs := h.history("main")
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Content.Text() != "echo: hello" {
		t.Fatalf("transcript = %v", texts(msgs))
	}
	if msgs[0].Provenance == nil || msgs[0].Provenance.Kind != domain.ProvenanceExternalUser {
		t.Fatalf("user message provenance = %+v", msgs[0].Provenance)
	}
	s, err := h.e.Session(t.Context(), "main")
	if err != nil {
		t.Fatal(err)
	}
	if s.Key != "agent:main:main" || s.TotalTokens == 0 || s.Model != "script" || !s.SystemSent {
		t.Fatalf("session row = %+v", s)
	}
}
