package engine

import "github.com/switchboard-go/switchboard/internal/api"

// ToolOutcome is a tool call's result.
type ToolOutcome = api.ToolOutcome
