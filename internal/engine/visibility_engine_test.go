package engine

import (
	"slices"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// threeAgents configures main, beta and gamma with visibility mode and
// agent-to-agent access for allow (nil: disabled).
func threeAgents(mode string, allow []string) func(*config.Config) {
	return func(c *config.Config) {
		c.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "beta"}, {ID: "gamma"}}
		c.Tools.Sessions.Visibility = mode
		c.Tools.AgentToAgent = config.AgentToAgentConfig{Enabled: allow != nil, Allow: allow}
	}
}

// listAs lists sessions as requester key through the api.Service and
// through the sessions_list tool, failing unless both agree.
func listAs(t *testing.T, h *harness, key string, req api.ListRequest, toolArgs string) []string {
	t.Helper()
	res, err := h.e.ListSessions(t.Context(), api.Operator().ActingAs(key), req)
	if err != nil {
		t.Fatalf("ListSessions as %s: %v", key, err)
	}
	got := canonicalKeys(h, key, keysOf(res))
	tool := canonicalKeys(h, key, keysOf(listResult(t, h.call(Requester{SessionKey: key}, api.ToolSessionsList, toolArgs))))
	if !slices.Equal(got, tool) {
		t.Fatalf("as %s: ListSessions %v, sessions_list %v", key, got, tool)
	}
	return got
}

// canonicalKeys turns listed keys (the requester's main session shows as
// `main`) into sorted canonical keys.
func canonicalKeys(h *harness, requester string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k
		if k == "main" {
			out[i] = "agent:" + h.e.keys.AgentOf(requester) + ":main"
		}
	}
	slices.Sort(out)
	return out
}

// TestVisibilityAllThroughTheEngine proves cross-agent listing and history
// under visibility "all": with tools.agentToAgent enabled and an allow
// list, rows of agents outside the list are filtered out row by row
// (allowRow); disabled, only the requester's agent is visible.
func TestVisibilityAllThroughTheEngine(t *testing.T) {
	sessions := []string{"agent:main:main", "agent:beta:main", "agent:gamma:main"}
	tests := []struct {
		name  string
		allow []string
		want  []string
	}{
		{"allow list filters rows", []string{"main", "beta"}, []string{"agent:beta:main", "agent:main:main"}},
		{"wildcard sees every agent", []string{"*"}, []string{"agent:beta:main", "agent:gamma:main", "agent:main:main"}},
		{"agent-to-agent disabled", nil, []string{"agent:main:main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, threeAgents("all", tt.allow))
			for _, k := range sessions {
				h.chat(k, "hello")
			}
			if got := listAs(t, h, "agent:main:main", api.ListRequest{}, `{}`); !slices.Equal(got, tt.want) {
				t.Fatalf("main lists %v, want %v", got, tt.want)
			}
			as := api.Operator().ActingAs("agent:main:main")
			for _, k := range sessions {
				_, err := h.e.History(t.Context(), as, api.HistoryRequest{SessionKey: k})
				visible := slices.Contains(tt.want, k)
				if visible && err != nil {
					t.Errorf("history of %s: %v, want visible", k, err)
				}
				if !visible && domain.ErrorCode(err) != domain.CodeForbidden {
					t.Errorf("history of %s: err = %v, want forbidden", k, err)
				}
			}
		})
	}
}

// TestVisibilitySelfThroughTheEngine proves visibility "self" lists only
// the requester's own session (not its children, not its agent's other
// sessions), with the list filters applied to that one row (matchesList).
func TestVisibilitySelfThroughTheEngine(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Tools.Sessions.Visibility = "self" })
	h.chat("main", "hello")
	h.chat("agent:main:other", "hello")
	child := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t"}`))
	waitRunEnd(t, h, child.RunID)

	if got := listAs(t, h, "agent:main:main", api.ListRequest{}, `{}`); !slices.Equal(got, []string{"agent:main:main"}) {
		t.Fatalf("self lists %v, want only agent:main:main", got)
	}
	if got := listAs(t, h, "agent:main:main", api.ListRequest{Kinds: []string{"main"}}, `{"kinds":["main"]}`); len(got) != 1 {
		t.Fatalf("self with kinds=main lists %v, want itself", got)
	}
	if got := listAs(t, h, "agent:main:main", api.ListRequest{Kinds: []string{"group"}}, `{"kinds":["group"]}`); len(got) != 0 {
		t.Fatalf("self with kinds=group lists %v, want nothing", got)
	}
	if got := listAs(t, h, "agent:main:other", api.ListRequest{}, `{}`); !slices.Equal(got, []string{"agent:main:other"}) {
		t.Fatalf("other lists %v, want only itself", got)
	}
	// An archived own row is hidden unless asked for.
	if err := h.st.Update(t.Context(), func(tx domain.Tx) error {
		s, err := tx.GetSession("agent:main:other")
		if err != nil {
			return err
		}
		s.ArchivedAt = 1
		return tx.PutSession(s)
	}); err != nil {
		t.Fatal(err)
	}
	if got := listAs(t, h, "agent:main:other", api.ListRequest{}, `{}`); len(got) != 0 {
		t.Fatalf("archived self row listed: %v", got)
	}
	res, err := h.e.ListSessions(t.Context(), api.Operator().ActingAs("agent:main:other"), api.ListRequest{IncludeArchived: true})
	if err != nil || !slices.Equal(keysOf(res), []string{"agent:main:other"}) {
		t.Fatalf("archived self row with includeArchived = %v, %v", keysOf(res), err)
	}
	// Its own child's history is out of reach under self.
	if _, err := h.e.History(t.Context(), api.Operator().ActingAs("agent:main:main"), api.HistoryRequest{SessionKey: child.ChildSessionKey}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("history of own child under self: err = %v, want forbidden", err)
	}
}
