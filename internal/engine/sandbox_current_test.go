package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/model/script"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// restartWith closes h's engine and starts a new one on the same store
// with the configuration changed by mutate (a restart after a config edit).
func (h *harness) restartWith(mutate func(*config.Config)) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.e.Close(ctx); err != nil {
		h.t.Fatal(err)
	}
	next := *h.cfg
	next.Agents.List = slices.Clone(h.cfg.Agents.List)
	mutate(&next)
	m, err := script.New(next.Models.Providers["script"].Rules, time.Now)
	if err != nil {
		h.t.Fatal(err)
	}
	e, err := New(Options{Config: &next, Store: h.st, Models: scriptModels{m}, Mirror: transcript.New(h.dir, time.Now),
		StateDir: h.dir, MaintenanceInterval: 20 * time.Millisecond})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.Close(ctx); err != nil {
			h.t.Errorf("close restarted engine: %v", err)
		}
	})
	if err := e.Start(ctx); err != nil {
		h.t.Fatal(err)
	}
	h.e, h.cfg = e, &next
}

// TestSandboxTurnedOnCoversExistingSessions: turning an agent's sandbox on
// sandboxes the sessions it already has — its main session included — so
// they no longer read the whole agent or spawn unsandboxed children.
func TestSandboxTurnedOnCoversExistingSessions(t *testing.T) {
	all := []string{"*"}
	h := newHarness(t, nil, func(c *config.Config) {
		c.Tools.Sessions.Visibility = "all"
		c.Agents.List = []config.AgentConfig{
			{ID: "main", Subagents: &config.AgentSubagents{AllowAgents: all}},
			{ID: "box", Subagents: &config.AgentSubagents{AllowAgents: all}},
		}
	})
	h.chat("agent:box:main", "hello")
	h.chat("agent:box:other", "a secret elsewhere")
	box := Requester{SessionKey: "agent:box:main"}
	if keys := keysOf(listResult(t, h.call(box, api.ToolSessionsList, `{}`))); !slices.Contains(keys, "agent:box:other") {
		t.Fatalf("before the sandbox: box main lists %v, want agent:box:other", keys)
	}

	h.restartWith(func(c *config.Config) { c.Agents.List[1].Sandbox = &config.AgentSandbox{Mode: config.SandboxAll} })

	if keys := keysOf(listResult(t, h.call(box, api.ToolSessionsList, `{}`))); slices.Contains(keys, "agent:box:other") {
		t.Errorf("sandboxed box main still lists %v", keys)
	}
	if out := h.call(box, api.ToolSessionsHistory, `{"sessionKey":"agent:box:other"}`); !out.IsError {
		t.Errorf("sandboxed box main read agent:box:other: %s", out.JSON())
	}
	wantSpawnRefused(t, "sandboxed main, unsandboxed target", h.call(box, api.ToolSessionsSpawn, `{"task":"t","agentId":"main"}`),
		`sessions_spawn refused: this session is sandboxed and agent "main" would run unsandboxed`)
	res := spawnResult(t, h.call(box, api.ToolSessionsSpawn, `{"task":"t"}`))
	if child, err := h.st.GetSession(t.Context(), res.ChildSessionKey); err != nil || !child.Sandboxed {
		t.Errorf("child of the sandboxed main = %+v, %v; want sandboxed", child, err)
	}
}

// TestSandboxTurnedOnByReloadCoversExistingSessions: a configuration
// reload that turns an agent's sandbox on applies at once — no restart —
// to the sessions the agent already has, its main session included.
func TestSandboxTurnedOnByReloadCoversExistingSessions(t *testing.T) {
	all := []string{"*"}
	h := newHarness(t, nil, func(c *config.Config) {
		c.Tools.Sessions.Visibility = "all"
		c.Agents.List = []config.AgentConfig{
			{ID: "main", Subagents: &config.AgentSubagents{AllowAgents: all}},
			{ID: "box", Subagents: &config.AgentSubagents{AllowAgents: all}},
		}
	})
	h.chat("agent:box:main", "hello")
	h.chat("agent:box:other", "a secret elsewhere")
	box := Requester{SessionKey: "agent:box:main"}
	if keys := keysOf(listResult(t, h.call(box, api.ToolSessionsList, `{}`))); !slices.Contains(keys, "agent:box:other") {
		t.Fatalf("before the sandbox: box main lists %v, want agent:box:other", keys)
	}

	next := *h.cfg
	next.Agents.List = slices.Clone(h.cfg.Agents.List)
	next.Agents.List[1].Sandbox = &config.AgentSandbox{Mode: config.SandboxAll}
	applied, needRestart, err := h.e.Reload(&next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(applied, "agents.list") || len(needRestart) != 0 {
		t.Errorf("reload applied %v, needs a restart for %v; want agents.list applied and nothing waiting", applied, needRestart)
	}

	if keys := keysOf(listResult(t, h.call(box, api.ToolSessionsList, `{}`))); slices.Contains(keys, "agent:box:other") {
		t.Errorf("after the reload box main still lists %v", keys)
	}
	if out := h.call(box, api.ToolSessionsHistory, `{"sessionKey":"agent:box:other"}`); !out.IsError {
		t.Errorf("after the reload box main read agent:box:other: %s", out.JSON())
	}
	wantSpawnRefused(t, "reloaded sandbox, unsandboxed target", h.call(box, api.ToolSessionsSpawn, `{"task":"t","agentId":"main"}`),
		`sessions_spawn refused: this session is sandboxed and agent "main" would run unsandboxed`)
	res := spawnResult(t, h.call(box, api.ToolSessionsSpawn, `{"task":"t"}`))
	if child, err := h.st.GetSession(t.Context(), res.ChildSessionKey); err != nil || !child.Sandboxed {
		t.Errorf("child after the reload = %+v, %v; want sandboxed", child, err)
	}
}
