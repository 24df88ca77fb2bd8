package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// An agent's `tools` filter decides which session tools its runs may call
// (an empty allow list allows all, "*" allows all, deny wins over allow):
// a call to a filtered-out tool comes back to the model as "tool not
// available", an allowed one runs.
func TestAgentToolFilterDecidesWhatItsRunsMayCall(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Role: "user", Message: "^list agents$"}, api.ToolAgentsList, nil),
		rule(config.ScriptWhen{Role: "toolResult", Message: "tool not available: agents_list"}, "refused"),
		rule(config.ScriptWhen{Role: "toolResult"}, "listed"),
	}, func(c *config.Config) {
		c.Agents.List = []config.AgentConfig{
			{ID: "main"},
			{ID: "denied", Tools: &config.ToolFilter{Deny: []string{api.ToolAgentsList}}},
			{ID: "narrow", Tools: &config.ToolFilter{Allow: []string{api.ToolSessionsList}}},
			{ID: "star", Tools: &config.ToolFilter{Allow: []string{"*"}}},
			{ID: "starbut", Tools: &config.ToolFilter{Allow: []string{"*"}, Deny: []string{api.ToolAgentsList}}},
			{ID: "listed", Tools: &config.ToolFilter{Allow: []string{api.ToolAgentsList}}},
		}
	})
	for agent, want := range map[string]string{
		"main": "listed", "denied": "refused", "narrow": "refused", "star": "listed", "starbut": "refused", "listed": "listed",
	} {
		r := h.chat("agent:"+agent+":tools", "list agents")
		if r.Status != domain.RunOK || r.Reply != want {
			t.Errorf("agent %s calling agents_list = %s %q, want %q", agent, r.Status, r.Reply, want)
		}
	}
}

// An agent's systemPrompt is what its model is told it is; without one
// the model is told the agent's name (else its id) and that switchboard
// hosts it.
func TestAgentSystemPrompt(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{System: `^You are the ops room's assistant\.\n\nSession: agent:ops:`}, "ops prompt"),
		rule(config.ScriptWhen{System: `^You are Nemo, an agent hosted by switchboard\.`}, "named"),
		rule(config.ScriptWhen{System: `^You are plain, an agent hosted by switchboard\.`}, "by id"),
		rule(config.ScriptWhen{}, "no match"),
	}, func(c *config.Config) {
		c.Agents.List = []config.AgentConfig{
			{ID: "main"},
			{ID: "ops", Name: "Ops", SystemPrompt: "You are the ops room's assistant."},
			{ID: "nemo", Name: "Nemo"},
			{ID: "plain"},
		}
	})
	for agent, want := range map[string]string{"ops": "ops prompt", "nemo": "named", "plain": "by id"} {
		if r := h.chat("agent:"+agent+":x", "hello"); r.Reply != want {
			t.Errorf("agent %s answered %q, want %q (its system prompt)", agent, r.Reply, want)
		}
	}
}

// A reload applies an agent's system prompt to its next run, and is
// refused whole — nothing of it applied — when it names a model the
// providers cannot resolve (docs/cli.md, what a reload changes).
func TestReloadRefusedWholeForAModelItCannotResolve(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		rule(config.ScriptWhen{System: `^Be brief\.`}, "brief"),
		rule(config.ScriptWhen{}, "plain"),
	}, func(c *config.Config) { c.Agents.List = []config.AgentConfig{{ID: "main"}} })
	if r := h.chat("main", "one"); r.Reply != "plain" {
		t.Fatalf("before the reload = %q", r.Reply)
	}
	next := *h.cfg
	next.Agents.List = []config.AgentConfig{{ID: "main", SystemPrompt: "Be brief.", Model: "nowhere/none"}}
	if _, _, err := h.e.Reload(&next); err == nil || !strings.Contains(err.Error(), `model "nowhere/none"`) {
		t.Fatalf("reload naming an unknown model = %v, want it refused naming the model", err)
	}
	if r := h.chat("main", "two"); r.Reply != "plain" {
		t.Fatalf("after the refused reload = %q, want the old system prompt still in effect", r.Reply)
	}
	next.Agents.List = []config.AgentConfig{{ID: "main", SystemPrompt: "Be brief."}}
	applied, _, err := h.e.Reload(&next)
	if err != nil || !slices.Contains(applied, "agents.list") {
		t.Fatalf("reload = %v, %v; want agents.list applied", applied, err)
	}
	if r := h.chat("main", "three"); r.Reply != "brief" {
		t.Fatalf("after the reload = %q, want the new system prompt", r.Reply)
	}
}
