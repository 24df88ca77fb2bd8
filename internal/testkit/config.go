package testkit

import "github.com/switchboard-go/switchboard/internal/config"

// Config is the in-process tests' base config: the script model, the
// main key "main" scoped per sender, "tree" visibility, one level of
// children (5 per agent, 8 at once), a short ping-pong, attachments on
// with their documented limits, and the one agent "main". A test changes
// what it needs on the copy it gets.
func Config() *config.Config {
	c := &config.Config{}
	c.Session.MainKey = "main"
	c.Session.Scope = "per-sender"
	c.Session.AgentToAgent.MaxPingPongTurns = 5
	c.Session.AgentToAgent.MaxHops = 5
	c.Tools.Sessions.Visibility = "tree"
	c.Agents.Defaults.Model = "script"
	c.Agents.Defaults.Subagents.ArchiveAfterMinutes = 60
	c.Agents.Defaults.Subagents.MaxSpawnDepth = 1
	c.Agents.Defaults.Subagents.MaxChildrenPerAgent = 5
	c.Agents.Defaults.Subagents.MaxConcurrent = 8
	c.Agents.Defaults.Sandbox.SessionToolsVisibility = "spawned"
	c.Agents.List = []config.AgentConfig{{ID: "main"}}
	c.Runtime.MaxSteps = 25
	c.Tools.SessionsSpawn.Attachments = config.AttachmentsConfig{MaxFiles: 50, MaxFileBytes: 1 << 20, MaxTotalBytes: 5 << 20}
	return c
}
