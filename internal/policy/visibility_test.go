package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// The session tree of the matrix: agent:main:main spawned the requester and
// its sibling; the requester spawned kid, and kid spawned grand.
const (
	reqKey     = "agent:main:subagent:req"
	parentKey  = "agent:main:main"
	siblingKey = "agent:main:subagent:sib"
	childKey   = "agent:main:subagent:kid"
	grandKey   = "agent:main:subagent:grand"
	otherKey   = "agent:research:main"
)

// Outcome codes of the matrix.
const (
	allow   = "ok"
	denSelf = "self"    // restricted to the current session
	denTree = "tree"    // restricted to the current session tree
	denX    = "cross"   // cross-agent needs visibility=all
	denA2A  = "a2a-off" // agent-to-agent disabled
	denSbx  = "sandbox" // not visible from this sandboxed session
)

func TestVisibilityMatrix(t *testing.T) {
	matrixTargets := []struct {
		name string
		t    TargetFacts
	}{
		{"self", TargetFacts{Key: reqKey}},
		{"child", TargetFacts{Key: childKey, InTree: true}},
		{"grandchild", TargetFacts{Key: grandKey, InTree: true}},
		{"sibling", TargetFacts{Key: siblingKey}},
		{"parent", TargetFacts{Key: parentKey}},
		{"other agent", TargetFacts{Key: otherKey, AgentID: "research"}},
	}
	// Columns follow matrixTargets: self, child, grandchild, sibling, parent, other agent.
	want := map[string][6]string{
		"self/plain/a2a-off":   {allow, denSelf, denSelf, denSelf, denSelf, denX},
		"self/plain/a2a-on":    {allow, denSelf, denSelf, denSelf, denSelf, denX},
		"self/sandbox/a2a-off": {allow, denSbx, denSbx, denSbx, denSbx, denSbx},
		"self/sandbox/a2a-on":  {allow, denSbx, denSbx, denSbx, denSbx, denSbx},

		"tree/plain/a2a-off":   {allow, allow, allow, denTree, denTree, denX},
		"tree/plain/a2a-on":    {allow, allow, allow, denTree, denTree, denX},
		"tree/sandbox/a2a-off": {allow, allow, allow, denSbx, denSbx, denSbx},
		"tree/sandbox/a2a-on":  {allow, allow, allow, denSbx, denSbx, denSbx},

		"agent/plain/a2a-off":   {allow, allow, allow, allow, allow, denX},
		"agent/plain/a2a-on":    {allow, allow, allow, allow, allow, denX},
		"agent/sandbox/a2a-off": {allow, allow, allow, denSbx, denSbx, denSbx},
		"agent/sandbox/a2a-on":  {allow, allow, allow, denSbx, denSbx, denSbx},

		"all/plain/a2a-off":   {allow, allow, allow, allow, allow, denA2A},
		"all/plain/a2a-on":    {allow, allow, allow, allow, allow, allow},
		"all/sandbox/a2a-off": {allow, allow, allow, denSbx, denSbx, denSbx},
		"all/sandbox/a2a-on":  {allow, allow, allow, denSbx, denSbx, denSbx},
	}
	wantMode := map[string]string{
		"self/plain": "self", "self/sandbox": "self",
		"tree/plain": "tree", "tree/sandbox": "tree",
		"agent/plain": "agent", "agent/sandbox": "tree",
		"all/plain": "all", "all/sandbox": "tree",
	}

	for _, mode := range []string{"self", "tree", "agent", "all"} {
		for _, sandboxed := range []bool{false, true} {
			for _, a2a := range []bool{false, true} {
				sbx := map[bool]string{false: "plain", true: "sandbox"}[sandboxed]
				name := fmt.Sprintf("%s/%s/%s", mode, sbx, map[bool]string{false: "a2a-off", true: "a2a-on"}[a2a])
				t.Run(name, func(t *testing.T) {
					cfg := &config.Config{}
					cfg.Tools.Sessions.Visibility = mode
					cfg.Tools.AgentToAgent.Enabled = a2a
					v := NewVisibility(cfg, reqKey, "main", sandboxed)
					if got := v.Mode(); got != wantMode[mode+"/"+sbx] {
						t.Errorf("Mode() = %q, want %q", got, wantMode[mode+"/"+sbx])
					}
					if v.Restricted() != sandboxed {
						t.Errorf("Restricted() = %v, want %v", v.Restricted(), sandboxed)
					}
					row, found := want[name]
					if !found {
						t.Fatalf("no expectation for %s", name)
					}
					for i, target := range matrixTargets {
						for _, action := range []Action{ActionHistory, ActionSend, ActionStatus, ActionList} {
							err := v.Check(target.t, action)
							wantMsg := expectedMessage(row[i], action, target.t.Key)
							if wantMsg == "" {
								if err != nil {
									t.Errorf("%s %v: got %v, want allowed", target.name, action, err)
								}
								continue
							}
							var de *domain.Error
							if !errors.As(err, &de) {
								t.Errorf("%s %v: got %v, want forbidden %q", target.name, action, err, wantMsg)
								continue
							}
							if de.Code != domain.CodeForbidden || de.Message != wantMsg {
								t.Errorf("%s %v: got %s %q, want forbidden %q", target.name, action, de.Code, de.Message, wantMsg)
							}
						}
					}
				})
			}
		}
	}
}

// expectedMessage spells out OpenClaw's guard messages for an outcome code.
func expectedMessage(code string, a Action, key string) string {
	words := map[Action][3]string{
		ActionHistory: {"Session history", "history", "access"},
		ActionSend:    {"Session send", "messaging", "sends"},
		ActionStatus:  {"Session status", "status", "access"},
		ActionList:    {"Session list", "listing", "visibility"},
	}[a]
	switch code {
	case allow:
		return ""
	case denSelf:
		return words[0] + " visibility is restricted to the current session (tools.sessions.visibility=self)."
	case denTree:
		return words[0] + " visibility is restricted to the current session tree (tools.sessions.visibility=tree)."
	case denX:
		return words[0] + " visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."
	case denA2A:
		return "Agent-to-agent " + words[1] + " is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent " + words[2] + "."
	case denSbx:
		return "Session not visible from this sandboxed agent session: " + key
	}
	panic("unknown outcome " + code)
}

func TestVisibilityA2AAllowList(t *testing.T) {
	cfg := &config.Config{}
	cfg.Tools.Sessions.Visibility = "all"
	cfg.Tools.AgentToAgent = config.AgentToAgentConfig{Enabled: true, Allow: []string{"main", "res*"}}
	v := NewVisibility(cfg, "agent:main:main", "", false)
	if err := v.Check(TargetFacts{Key: "agent:research:main"}, ActionSend); err != nil {
		t.Errorf("research: %v", err)
	}
	err := v.Check(TargetFacts{Key: "agent:ops:main"}, ActionSend)
	if want := "Agent-to-agent messaging denied by tools.agentToAgent.allow."; err == nil || err.Error() != want {
		t.Errorf("ops: got %v, want %q", err, want)
	}
	err = v.Check(TargetFacts{Key: "agent:ops:main"}, ActionList)
	if want := "Agent-to-agent listing denied by tools.agentToAgent.allow."; err == nil || err.Error() != want {
		t.Errorf("ops list: got %v, want %q", err, want)
	}
}

func TestVisibilityDefaults(t *testing.T) {
	tests := []struct {
		name           string
		cfg            *config.Config
		key, agent     string
		sandboxed      bool
		wantMode       string
		wantRestricted bool
		wantAgent      string
	}{
		{"nil config is tree", nil, "agent:main:main", "", false, "tree", false, "main"},
		{"invalid mode is tree", cfgWith("everything", ""), "agent:main:main", "", false, "tree", false, "main"},
		{"mode is case-insensitive", cfgWith(" ALL ", ""), "agent:Ops:main", "", false, "all", false, "ops"},
		{"explicit agent wins over key", cfgWith("agent", ""), "agent:main:main", "Research", false, "agent", false, "research"},
		{"non-agent key is the default agent", cfgWith("agent", ""), "cron:nightly", "", false, "agent", false, "main"},
		{"sandbox clamp all lifts the clamp", cfgWith("all", "all"), "agent:main:main", "", true, "all", false, "main"},
		{"sandbox clamp spawned", cfgWith("all", "Spawned"), "agent:main:main", "", true, "tree", true, "main"},
		{"unknown clamp is spawned", cfgWith("agent", "bogus"), "agent:main:main", "", true, "tree", true, "main"},
		{"clamp never widens self", cfgWith("self", ""), "agent:main:main", "", true, "self", true, "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVisibility(tt.cfg, tt.key, tt.agent, tt.sandboxed)
			if v.Mode() != tt.wantMode || v.Restricted() != tt.wantRestricted || v.RequesterAgent() != tt.wantAgent {
				t.Errorf("got mode=%q restricted=%v agent=%q, want %q %v %q",
					v.Mode(), v.Restricted(), v.RequesterAgent(), tt.wantMode, tt.wantRestricted, tt.wantAgent)
			}
		})
	}
}

func TestVisibilityNonAgentTargetIsDefaultAgent(t *testing.T) {
	cfg := cfgWith("agent", "")
	cfg.Agents.List = []config.AgentConfig{{ID: "ops"}, {ID: "main", Default: true}}
	v := NewVisibility(cfg, "agent:main:main", "main", false)
	if err := v.Check(TargetFacts{Key: "cron:nightly"}, ActionHistory); err != nil {
		t.Errorf("cron key of default agent: %v", err)
	}
	v = NewVisibility(cfg, "agent:ops:main", "ops", false)
	if err := v.Check(TargetFacts{Key: "cron:nightly"}, ActionHistory); err == nil ||
		!strings.Contains(err.Error(), "cross-agent") {
		t.Errorf("cron key from another agent: got %v, want cross-agent refusal", err)
	}
}

func TestVisibilitySelfIsCaseInsensitive(t *testing.T) {
	v := NewVisibility(cfgWith("self", ""), "agent:main:main", "", false)
	if err := v.Check(TargetFacts{Key: "AGENT:MAIN:MAIN"}, ActionHistory); err != nil {
		t.Errorf("self in other case: %v", err)
	}
}

func TestListScope(t *testing.T) {
	tests := []struct {
		name      string
		mode      string
		a2a       config.AgentToAgentConfig
		sandboxed bool
		want      ListScope
	}{
		{"self", "self", config.AgentToAgentConfig{}, false, ListScope{SelfOnly: true, AgentIDs: []string{"main"}}},
		{"tree", "tree", config.AgentToAgentConfig{}, false, ListScope{TreeRoot: reqKey, AgentIDs: []string{"main"}}},
		{"agent", "agent", config.AgentToAgentConfig{}, false, ListScope{AgentIDs: []string{"main"}}},
		{"agent sandboxed is tree", "agent", config.AgentToAgentConfig{}, true, ListScope{TreeRoot: reqKey, AgentIDs: []string{"main"}}},
		{"all, a2a off", "all", config.AgentToAgentConfig{}, false, ListScope{AgentIDs: []string{"main"}}},
		{"all, a2a on, empty list", "all", config.AgentToAgentConfig{Enabled: true}, false, ListScope{}},
		{"all, a2a on, star", "all", config.AgentToAgentConfig{Enabled: true, Allow: []string{"*"}}, false, ListScope{}},
		{"all, a2a on, requester not admitted", "all", config.AgentToAgentConfig{Enabled: true, Allow: []string{"research"}}, false, ListScope{AgentIDs: []string{"main"}}},
		{"all, a2a on, list of ids", "all", config.AgentToAgentConfig{Enabled: true, Allow: []string{"main", "research", "Research"}}, false, ListScope{AgentIDs: []string{"main", "research"}}},
		{"all, a2a on, list of patterns", "all", config.AgentToAgentConfig{Enabled: true, Allow: []string{"main", "res*"}}, false, ListScope{Filter: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := cfgWith(tt.mode, "")
			cfg.Tools.AgentToAgent = tt.a2a
			got := NewVisibility(cfg, reqKey, "main", tt.sandboxed).ListScope()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ListScope() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func cfgWith(visibility, sandboxClamp string) *config.Config {
	cfg := &config.Config{}
	cfg.Tools.Sessions.Visibility = visibility
	cfg.Agents.Defaults.Sandbox.SessionToolsVisibility = sandboxClamp
	return cfg
}

func TestZeroVisibilityRefuses(t *testing.T) {
	var v Visibility
	for _, target := range []TargetFacts{{}, {Key: "agent:main:main"}, {Key: "x", AgentID: ""}} {
		if err := v.Check(target, ActionHistory); err == nil {
			t.Errorf("zero Visibility allowed %+v", target)
		}
	}
}

// TestCrossAgentWording spells out every cross-agent refusal literally, as
// OpenClaw words them, for each action.
func TestCrossAgentWording(t *testing.T) {
	restricted := cfgWith("agent", "")
	disabled := cfgWith("all", "")
	denied := cfgWith("all", "")
	denied.Tools.AgentToAgent = config.AgentToAgentConfig{Enabled: true, Allow: []string{"main"}}
	for _, tc := range []struct {
		cfg    *config.Config
		action Action
		want   string
	}{
		{restricted, ActionHistory, "Session history visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."},
		{restricted, ActionSend, "Session send visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."},
		{restricted, ActionStatus, "Session status visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."},
		{restricted, ActionList, "Session list visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."},
		{disabled, ActionHistory, "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access."},
		{disabled, ActionSend, "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends."},
		{disabled, ActionStatus, "Agent-to-agent status is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access."},
		{disabled, ActionList, "Agent-to-agent listing is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent visibility."},
		{denied, ActionHistory, "Agent-to-agent history denied by tools.agentToAgent.allow."},
		{denied, ActionSend, "Agent-to-agent messaging denied by tools.agentToAgent.allow."},
		{denied, ActionStatus, "Agent-to-agent status denied by tools.agentToAgent.allow."},
		{denied, ActionList, "Agent-to-agent listing denied by tools.agentToAgent.allow."},
	} {
		t.Run(tc.want, func(t *testing.T) {
			err := NewVisibility(tc.cfg, "agent:main:main", "", false).Check(TargetFacts{Key: "agent:ops:main"}, tc.action)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
