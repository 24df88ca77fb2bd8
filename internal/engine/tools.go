package engine

import "github.com/switchboard-go/switchboard/internal/api"

// ToolOutcome is a tool call's result.
type ToolOutcome = api.ToolOutcome

// Tool names (the session tools' names are policy's, which filters them).
const (
	ToolSessionsList    = api.ToolSessionsList
	ToolSessionsHistory = api.ToolSessionsHistory
	ToolSessionsSend    = api.ToolSessionsSend
	ToolSessionsSpawn   = api.ToolSessionsSpawn
	ToolAgentsList      = api.ToolAgentsList
	ToolSubagents       = api.ToolSubagents
	ToolRunsWait        = api.ToolRunsWait
)
