package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestBadge(t *testing.T) {
	canonical := func(k string) string {
		if k == "main" {
			return "agent:main:main"
		}
		return k
	}
	failed := true
	tests := []struct {
		name string
		m    domain.Message
		want string
	}{
		{"plain user", domain.Message{Role: domain.RoleUser}, ""},
		{"external user", domain.Message{Role: domain.RoleUser, Provenance: &domain.Provenance{Kind: domain.ProvenanceExternalUser, SourceChannel: "webchat"}}, "[external user · webchat]"},
		{"inter-session", domain.Message{Role: domain.RoleUser, Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, SourceSessionKey: "agent:main:main", SourceTool: "sessions_send"}}, "[inter-session ← agent:main:main · sessions_send]"},
		{"a2a reply step", domain.Message{Role: domain.RoleUser, Provenance: &domain.Provenance{Kind: domain.ProvenanceA2AStep, Step: domain.A2AStepReply, SourceSessionKey: "agent:main:main"}}, "[a2a reply step from agent:main:main]"},
		{"a2a announce step, key printed canonically", domain.Message{Role: domain.RoleUser, Provenance: &domain.Provenance{Kind: domain.ProvenanceA2AStep, Step: domain.A2AStepAnnounce, SourceSessionKey: "main"}}, "[a2a announce step from agent:main:main]"},
		{"a2a step without details", domain.Message{Role: domain.RoleUser, Provenance: &domain.Provenance{Kind: domain.ProvenanceA2AStep}}, "[a2a step]"},
		{"system", domain.Message{Role: domain.RoleUser, Provenance: &domain.Provenance{Kind: domain.ProvenanceInternalSystem}}, "[system]"},
		{"failed tool result", domain.Message{Role: domain.RoleToolResult, IsError: &failed}, "[error]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := badge(tt.m, canonical); got != tt.want {
				t.Fatalf("badge = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteMessageShowsA2AStep(t *testing.T) {
	var buf bytes.Buffer
	m := domain.Message{Role: domain.RoleUser, Content: domain.TextContent("Agent-to-agent reply step."),
		Provenance: &domain.Provenance{Kind: domain.ProvenanceA2AStep, Step: domain.A2AStepReply, SourceSessionKey: "agent:main:main"}}
	writeMessage(&buf, m, msgStyle{})
	head, _, _ := strings.Cut(buf.String(), "\n")
	if !strings.HasSuffix(head, "user  [a2a reply step from agent:main:main]") {
		t.Fatalf("header = %q", head)
	}
}
