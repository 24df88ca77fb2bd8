package policy

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

func TestSandboxedConfigWinsWhenStricter(t *testing.T) {
	boxed := &config.Config{}
	boxed.Agents.List = []config.AgentConfig{{ID: "main", Sandbox: &config.AgentSandbox{Mode: config.SandboxAll}}}
	open := &config.Config{}
	open.Agents.List = []config.AgentConfig{{ID: "main"}}
	for _, tc := range []struct {
		name string
		cfg  *config.Config
		row  bool
		want bool
	}{
		{"config on, row created before", boxed, false, true},
		{"config on, row on", boxed, true, true},
		{"config off, inherited row flag", open, true, true},
		{"config off, row off", open, false, false},
	} {
		if got := Sandboxed(tc.cfg, "main", tc.row); got != tc.want {
			t.Errorf("%s: Sandboxed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
