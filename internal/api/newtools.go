package api

// The session tools OpenClaw added after the reference (issue 15 items
// 3–6): sessions_yield, session_status, sessions_spawn's context and
// sessions_send's mode.

import "github.com/switchboard-go/switchboard/internal/domain"

// Modes of sessions_send.
const (
	// SendFollowup queues the message after the target's current run
	// (the reference's behaviour).
	SendFollowup = "followup"
	// SendSteer gives the message to the target's running run at its next
	// model step; with no run to join it is a followup.
	SendSteer = "steer"
	// SendNotify writes the message into the target's transcript and
	// starts no run.
	SendNotify = "notify"
)

// SendModes lists sessions_send's modes, the default first.
func SendModes() []string { return []string{SendFollowup, SendSteer, SendNotify} }

// Contexts of sessions_spawn.
const (
	// SpawnIsolated starts the child with its task alone (the reference).
	SpawnIsolated = "isolated"
	// SpawnFork starts the child with a copy of the requester's recent
	// transcript (within ForkMessages and ForkChars) before its task.
	SpawnFork = "fork"
)

// SpawnContexts lists sessions_spawn's contexts, the default first.
func SpawnContexts() []string { return []string{SpawnIsolated, SpawnFork} }

// ErrNoSessionContext is sessions_yield's error outside a run.
const ErrNoSessionContext = "No session context"

// YieldRequest are sessions_yield's parameters.
type YieldRequest struct {
	Message string
}

// YieldResult is sessions_yield's payload.
type YieldResult struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// StatusRequest are session_status's parameters. An empty SessionKey is
// the requester's own session; Model, when set, switches the session's
// model override ("default" clears it).
type StatusRequest struct {
	SessionKey string
	Model      string
}

// StatusActiveRun is the run a session is carrying out now.
type StatusActiveRun struct {
	RunID     string `json:"runId"`
	Kind      string `json:"kind"`
	StartedAt int64  `json:"startedAt,omitempty"`
	AgeMs     int64  `json:"ageMs"`
}

// StatusTokens are a session's token counts.
type StatusTokens struct {
	Input   int64 `json:"input"`
	Output  int64 `json:"output"`
	Total   int64 `json:"total"`
	Context int64 `json:"context"`
}

// StatusResult is session_status's payload: the status card.
type StatusResult struct {
	Status     string `json:"status"`
	SessionKey string `json:"sessionKey"`
	SessionID  string `json:"sessionId,omitempty"`
	AgentID    string `json:"agentId"`
	// Model is the model reference the session's next run uses; Override
	// is the session's own choice ("" = the agent's model).
	Model            string           `json:"model"`
	ModelOverride    string           `json:"modelOverride,omitempty"`
	ModelProvider    string           `json:"modelProvider,omitempty"`
	ThinkingLevel    string           `json:"thinkingLevel,omitempty"`
	Tokens           StatusTokens     `json:"tokens"`
	EstimatedCostUSD float64          `json:"estimatedCostUsd"`
	ActiveRun        *StatusActiveRun `json:"activeRun"`
	QueuedRuns       int              `json:"queuedRuns"`
	ChildrenRunning  int              `json:"childrenRunning"`
	// SendPolicy is the decision for a send into this session now
	// (allow|deny); SendPolicyOverride is the session's own setting.
	SendPolicy         string `json:"sendPolicy"`
	SendPolicyOverride string `json:"sendPolicyOverride,omitempty"`
	// LastActivity is the session row's updatedAt (ms), 0 before any.
	LastActivity     int64 `json:"lastActivity"`
	ForkedFromParent bool  `json:"forkedFromParent,omitempty"`
	// ModelChanged is set when this call switched the model override.
	ModelChanged bool `json:"modelChanged,omitempty"`
	// Usage is the session's own and spawn-tree usage; Budget (and its
	// deadline) what its tree may spend; Progress what its running run is
	// doing; RunningChildren its running sub-agents with their progress,
	// usage and budget (budgets.md).
	Usage           *domain.SessionUsage `json:"usage,omitempty"`
	Budget          *domain.Budget       `json:"budget,omitempty"`
	BudgetDeadline  int64                `json:"budgetDeadline,omitempty"`
	Progress        *domain.Progress     `json:"progress,omitempty"`
	RunningChildren []ChildRow           `json:"runningChildren,omitempty"`
}
