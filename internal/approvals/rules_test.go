package approvals

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

func TestMatch(t *testing.T) {
	yes, no := true, false
	send := Call{Tool: ToolSend, RequesterKey: "agent:main:a", RequesterAgent: "main", TargetKey: "agent:ops:x",
		TargetAgent: "ops", TargetChannel: "discord", ChatType: "group"}
	remote := Call{Tool: ToolSend, RequesterAgent: "main", TargetKey: "agent:far:main", TargetAgent: "far", TargetChannel: "unknown", Remote: true}
	spawn := Call{Tool: ToolSpawn, RequesterAgent: "main", TargetAgent: "ops"}
	for _, c := range []struct {
		name string
		rule config.ApprovalRule
		call Call
		want bool
	}{
		{"empty rule matches a send", config.ApprovalRule{}, send, true},
		{"empty rule matches a spawn", config.ApprovalRule{}, spawn, true},
		{"tool send skips a spawn", config.ApprovalRule{Tool: "send"}, spawn, false},
		{"tool spawn matches a spawn", config.ApprovalRule{Tool: "spawn", TargetAgent: "OPS"}, spawn, true},
		{"requester agent", config.ApprovalRule{RequesterAgent: "main"}, send, true},
		{"other requester agent", config.ApprovalRule{RequesterAgent: "ops"}, send, false},
		{"star matches", config.ApprovalRule{RequesterAgent: "*", TargetAgent: "*"}, send, true},
		{"target channel and chat type", config.ApprovalRule{TargetChannel: "discord", ChatType: "group"}, send, true},
		{"other chat type", config.ApprovalRule{TargetChannel: "discord", ChatType: "direct"}, send, false},
		{"remote only skips local", config.ApprovalRule{Remote: &yes}, send, false},
		{"remote only matches remote", config.ApprovalRule{Remote: &yes}, remote, true},
		{"local only skips remote", config.ApprovalRule{Remote: &no}, remote, false},
		{"session criteria never match a spawn", config.ApprovalRule{ChatType: "group"}, spawn, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := Match([]config.ApprovalRule{c.rule}, c.call)
			if got != c.want {
				t.Fatalf("Match = %v, want %v", got, c.want)
			}
		})
	}
	i, ok := Match([]config.ApprovalRule{{Tool: "spawn"}, {Tool: "send"}, {}}, send)
	if !ok || i != 1 {
		t.Fatalf("first matching rule = %d, %v; want 1", i, ok)
	}
}

func TestEdge(t *testing.T) {
	a := Edge(0, Call{Tool: ToolSend, RequesterKey: "agent:main:a", TargetKey: "agent:main:b"})
	b := Edge(0, Call{Tool: ToolSend, RequesterKey: "agent:main:b", TargetKey: "agent:main:a"})
	c := Edge(1, Call{Tool: ToolSend, RequesterKey: "agent:main:a", TargetKey: "agent:main:b"})
	s := Edge(0, Call{Tool: ToolSpawn, RequesterKey: "agent:main:a", TargetAgent: "ops"})
	if a == b || a == c || a == s || s != "rule 0: spawn agent:main:a → agent:ops" {
		t.Fatalf("edges %q %q %q %q must differ by direction, rule and tool", a, b, c, s)
	}
}
