package gateway_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/config"
)

// TestModelsList: models.list answers OpenClaw's shape ({models: [{id,
// name, provider}]}, nothing else in an entry: OpenClaw's ModelChoice is
// a closed object) from the configured agents' models, each once, and
// takes OpenClaw's filters. The agents are those agents.list lists.
func TestModelsList(t *testing.T) {
	e := newEnv(t, envOptions{cfg: func(c *config.Config) {
		// agents.list lists what the main agent may reach: all three.
		c.Agents.List = []config.AgentConfig{{ID: "main", Name: "Main", Subagents: &config.AgentSubagents{AllowAgents: []string{"*"}}},
			{ID: "work", Model: "script/fast"}, {ID: "ops", Model: "script/fast"}}
	}})
	w, _ := e.connect(t, nil)
	type choice = map[string]any
	for _, c := range []struct {
		name   string
		params map[string]any
		want   []choice
	}{
		{"all", map[string]any{}, []choice{
			{"id": "fast", "name": "fast", "provider": "script"},
			{"id": "script", "name": "script", "provider": "script"},
		}},
		{"one agent", map[string]any{"agentId": "work", "view": "configured", "includeDetails": true}, []choice{
			{"id": "fast", "name": "fast", "provider": "script"},
		}},
		{"another provider", map[string]any{"provider": "openai"}, []choice{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res map[string]json.RawMessage
			w.ok("models.list", c.params, &res)
			if len(res) != 1 {
				t.Fatalf("models.list = %v, want only models", res)
			}
			var got []choice
			if err := json.Unmarshal(res["models"], &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("models (-want +got):\n%s", d)
			}
		})
	}
}
