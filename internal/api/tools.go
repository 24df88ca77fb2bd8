package api

import "encoding/json"

// Tool names, as agents and MCP clients see them.
const (
	ToolSessionsList    = "sessions_list"
	ToolSessionsHistory = "sessions_history"
	ToolSessionsSend    = "sessions_send"
	ToolSessionsSpawn   = "sessions_spawn"
	ToolAgentsList      = "agents_list"
	ToolSubagents       = "subagents"
	ToolRunsWait        = "runs_wait"
	ToolSessionsSearch  = "sessions_search"
	ToolSessionsYield   = "sessions_yield"
	ToolSessionStatus   = "session_status"
)

// AllTools lists every tool name in a stable order.
func AllTools() []string {
	return []string{ToolSessionsList, ToolSessionsHistory, ToolSessionsSend, ToolSessionsSpawn, ToolAgentsList, ToolSubagents, ToolRunsWait, ToolSessionsYield, ToolSessionStatus, ToolSessionsSearch}
}

// ToolOutcome is the result of a tool call: the JSON payload and whether
// it is an error (a status "error"/"forbidden" payload, invalid arguments,
// a missing scope).
type ToolOutcome struct {
	Payload any
	IsError bool
}

// JSON returns the payload as indented JSON (the text content of a tool
// result).
func (o ToolOutcome) JSON() []byte {
	b, err := json.MarshalIndent(o.Payload, "", "  ")
	if err != nil {
		return []byte(`{"status":"error","error":"result is not JSON"}`)
	}
	return b
}

// ErrorPayload is the payload of a failed tool call. RunID is set only
// when the run exists. Code says what a status "error" alone cannot:
// "conflict" (an idempotency key reused with other parameters),
// "unavailable" (retry later), "not_found", "timeout".
type ErrorPayload struct {
	RunID      string `json:"runId,omitempty"`
	Status     string `json:"status"`
	Error      string `json:"error"`
	Code       string `json:"code,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
}
