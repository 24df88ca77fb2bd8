package api

// Defaults are the session defaults a principal works with, as native
// surfaces show them (the WS hello snapshot, agents.list's header, the
// default model of sessions.list). They are presentation: every decision
// about keys is the gate's.
type Defaults struct {
	// DefaultAgentID is the agent a bare key of the operator belongs to.
	DefaultAgentID string `json:"defaultAgentId"`
	// MainKey is the rest of every agent's main session key ("main").
	MainKey string `json:"mainKey"`
	// MainSessionKey is the canonical key of the principal's requester's
	// main session (the operator's: the default agent's), the session
	// tool results print as `main`.
	MainSessionKey string `json:"mainSessionKey"`
	// Scope is the session scope (per-sender, global).
	Scope string `json:"scope"`
	// Model is the model the requester's agent runs on.
	Model string `json:"model"`
	// TranscriptPath is where an agent's transcripts live, with the agent
	// as `{agentId}` ("" without a transcript mirror).
	TranscriptPath string `json:"transcriptPath,omitempty"`
}
