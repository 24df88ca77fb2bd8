package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// slowChildren keeps every sub-agent run running (the harness's Close
// cancels them), so spawned children stay active for the limit checks.
var slowChildren = []config.ScriptRule{
	{When: config.ScriptWhen{Session: ":subagent:"}, Reply: str("never"), DelayMs: 60_000},
}

// wantSpawnRefused fails unless out is a forbidden refusal with exactly msg.
func wantSpawnRefused(t *testing.T, what string, out api.ToolOutcome, msg string) {
	t.Helper()
	if !out.IsError || errorOf(out) != msg {
		t.Fatalf("%s: isError=%v payload=%s, want error %q", what, out.IsError, out.JSON(), msg)
	}
}

// TestSpawnMaxChildrenPerAgentRefuses proves maxChildrenPerAgent counts a
// session's active children and refuses one more with the documented
// error, while another session may still spawn.
func TestSpawnMaxChildrenPerAgentRefuses(t *testing.T) {
	h := newHarness(t, slowChildren, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 2
		c.Agents.Defaults.Subagents.MaxConcurrent = 8
	})
	for i := range 2 {
		spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"slow `+string(rune('a'+i))+`"}`))
	}
	wantSpawnRefused(t, "third child of main", h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"one too many"}`),
		"sessions_spawn refused: this session already has 2 active sub-agents (agents.defaults.subagents.maxChildrenPerAgent=2)")
	// The limit is per requester session: another session is not counted.
	spawnResult(t, h.call(Requester{SessionKey: "agent:main:other"}, api.ToolSessionsSpawn, `{"task":"from other"}`))
}

// TestSpawnMaxConcurrentRefuses proves maxConcurrent counts every active
// child, whichever session spawned it.
func TestSpawnMaxConcurrentRefuses(t *testing.T) {
	h := newHarness(t, slowChildren, func(c *config.Config) {
		c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 5
		c.Agents.Defaults.Subagents.MaxConcurrent = 2
	})
	spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"first"}`))
	spawnResult(t, h.call(Requester{SessionKey: "agent:main:other"}, api.ToolSessionsSpawn, `{"task":"second"}`))
	wantSpawnRefused(t, "third child overall", h.call(Requester{SessionKey: "agent:main:third"}, api.ToolSessionsSpawn, `{"task":"third"}`),
		"sessions_spawn refused: 2 sub-agents are already active (agents.defaults.subagents.maxConcurrent=2)")
}

// TestSpawnSandboxRules proves sandbox="require" refuses an unsandboxed
// child and accepts a sandboxed one, and that a sandboxed requester cannot
// spawn an unsandboxed agent (its child inherits the sandbox otherwise).
func TestSpawnSandboxRules(t *testing.T) {
	h := newHarness(t, slowChildren, func(c *config.Config) {
		all := []string{"*"}
		c.Agents.List = []config.AgentConfig{
			{ID: "main", Subagents: &config.AgentSubagents{AllowAgents: all}},
			{ID: "box", Sandbox: &config.AgentSandbox{Mode: config.SandboxAll}, Subagents: &config.AgentSubagents{AllowAgents: all}},
		}
	})
	wantSpawnRefused(t, "require, unsandboxed child", h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","sandbox":"require"}`),
		`sessions_spawn refused: sandbox="require" but agent "main" runs unsandboxed (set its sandbox.mode to "all")`)
	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"t","sandbox":"require","agentId":"box"}`))
	child, err := h.st.GetSession(t.Context(), res.ChildSessionKey)
	if err != nil || !child.Sandboxed {
		t.Fatalf("sandbox=require child row = %+v, %v; want sandboxed", child, err)
	}

	box := Requester{SessionKey: "agent:box:main"}
	wantSpawnRefused(t, "sandboxed requester, unsandboxed target", h.call(box, api.ToolSessionsSpawn, `{"task":"t","agentId":"main"}`),
		`sessions_spawn refused: this session is sandboxed and agent "main" would run unsandboxed`)
	res = spawnResult(t, h.call(box, api.ToolSessionsSpawn, `{"task":"t"}`))
	if child, err := h.st.GetSession(t.Context(), res.ChildSessionKey); err != nil || !child.Sandboxed {
		t.Fatalf("sandboxed requester's child row = %+v, %v; want sandboxed", child, err)
	}
}

// TestSpawnDepthTwoAllowsGrandchildrenAndTreeIsTransitive proves that with
// maxSpawnDepth=2 a child may spawn (depth 2) but a grandchild may not
// (depth 3), and that the root requester's tree visibility reaches the
// grandchild: it is listed and its history readable (docs/design.md#visibility:
// tree is transitive).
func TestSpawnDepthTwoAllowsGrandchildrenAndTreeIsTransitive(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Agents.Defaults.Subagents.MaxSpawnDepth = 2 })
	child := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"child task"}`))
	grand := spawnResult(t, h.call(Requester{SessionKey: child.ChildSessionKey}, api.ToolSessionsSpawn, `{"task":"grandchild task"}`))
	row, err := h.st.GetSession(t.Context(), grand.ChildSessionKey)
	if err != nil || row.SpawnDepth != 2 || row.SpawnedBy != child.ChildSessionKey {
		t.Fatalf("grandchild row = %+v, %v; want depth 2 spawned by %s", row, err, child.ChildSessionKey)
	}
	wantSpawnRefused(t, "spawn at depth 3", h.call(Requester{SessionKey: grand.ChildSessionKey}, api.ToolSessionsSpawn, `{"task":"too deep"}`),
		"sessions_spawn refused: spawn depth 3 would exceed agents.defaults.subagents.maxSpawnDepth=2")

	if r, err := h.e.waitRun(t.Context(), grand.RunID, 10*time.Second); err != nil || r.Status != domain.RunOK {
		t.Fatalf("grandchild run = %+v, %v", r, err)
	}
	// The root (default tree visibility) sees the grandchild: through the
	// tool and through the api.Service a surface calls.
	keys := keysOf(listResult(t, h.call(Requester{}, api.ToolSessionsList, `{}`)))
	if !slices.Contains(keys, grand.ChildSessionKey) || !slices.Contains(keys, child.ChildSessionKey) {
		t.Fatalf("root's sessions_list = %v, want child and grandchild", keys)
	}
	root := api.Operator().ActingAs("agent:main:main")
	res, err := h.e.ListSessions(t.Context(), root, api.ListRequest{})
	if err != nil || !slices.Contains(keysOf(res), grand.ChildSessionKey) {
		t.Fatalf("ListSessions as root = %v, %v; want the grandchild", keysOf(res), err)
	}
	hist, err := h.e.History(t.Context(), root, api.HistoryRequest{SessionKey: grand.ChildSessionKey})
	if err != nil || len(hist.Messages) == 0 || hist.Messages[0].Content.Text() == "" {
		t.Fatalf("root reads the grandchild's history = %+v, %v", hist, err)
	}
	if out := h.call(Requester{}, api.ToolSessionsHistory, `{"sessionKey":"`+grand.ChildSessionKey+`"}`); out.IsError {
		t.Fatalf("sessions_history of the grandchild as root: %s", out.JSON())
	}
	// A session outside the tree sees neither.
	other := api.Operator().ActingAs("agent:main:other")
	res, err = h.e.ListSessions(t.Context(), other, api.ListRequest{})
	if err != nil || slices.Contains(keysOf(res), grand.ChildSessionKey) {
		t.Fatalf("ListSessions as an unrelated session = %v, %v; want no grandchild", keysOf(res), err)
	}
	if _, err := h.e.History(t.Context(), other, api.HistoryRequest{SessionKey: grand.ChildSessionKey}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("history of the grandchild from outside the tree: err = %v, want forbidden", err)
	}
}
