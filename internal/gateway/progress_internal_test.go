package gateway

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestProgressEventMapping: a run's progress goes out as an `agent` event
// on stream "progress" carrying the record; an event without one is none.
func TestProgressEventMapping(t *testing.T) {
	s := &Server{}
	p := domain.Progress{RunID: "r1", SessionKey: "agent:main:subagent:x", Step: 2, Phase: "tool:agents_list", Tokens: 40}
	out := s.mapEvent(domain.Event{Kind: domain.EventProgress, SessionKey: p.SessionKey, Progress: &p, TS: 7})
	if len(out) != 1 || out[0].name != "agent" {
		t.Fatalf("events = %+v", out)
	}
	m, ok := out[0].payload.(map[string]any)
	if !ok || m["stream"] != "progress" || m["runId"] != "r1" || m["sessionKey"] != p.SessionKey || m["ts"] != int64(7) {
		t.Fatalf("payload = %#v", out[0].payload)
	}
	if d, ok := m["data"].(*domain.Progress); !ok || d.Phase != "tool:agents_list" || d.Step != 2 {
		t.Fatalf("data = %#v", m["data"])
	}
	if out := s.mapEvent(domain.Event{Kind: domain.EventProgress}); out != nil {
		t.Fatalf("an empty progress event mapped to %+v", out)
	}
}
