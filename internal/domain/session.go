package domain

// Session kinds as the session tools report them.
const (
	KindMain  = "main"
	KindGroup = "group"
	KindCron  = "cron"
	KindHook  = "hook"
	KindNode  = "node"
	KindOther = "other"
)

// Send policy values stored on a session (empty means inherit from config).
const (
	SendPolicyAllow = "allow"
	SendPolicyDeny  = "deny"
)

// Sub-agent session statuses.
const (
	SessionStatusRunning = "running"
	SessionStatusDone    = "done"
	SessionStatusFailed  = "failed"
	SessionStatusKilled  = "killed"
	SessionStatusTimeout = "timeout"
)

// DeliveryContext is where replies of a session are delivered.
type DeliveryContext struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
}

// Origin is where a session first came from.
type Origin struct {
	Provider  string `json:"provider,omitempty"`
	AccountID string `json:"accountId,omitempty"`
}

// Session is one row of the session store, keyed by its canonical key
// (agent:<agentId>:<rest>). SessionID is the current transcript generation.
// Times are Unix milliseconds; zero means unset.
type Session struct {
	Key       string `json:"key"`
	AgentID   string `json:"agentId"`
	SessionID string `json:"sessionId"`
	// Kind is main|group|cron|hook|node|other, classified from the key when
	// the row is created (see package sessionkey).
	Kind string `json:"kind"`

	Channel     string           `json:"channel,omitempty"`
	ChatType    string           `json:"chatType,omitempty"`
	Label       string           `json:"label,omitempty"`
	DisplayName string           `json:"displayName,omitempty"`
	Origin      *Origin          `json:"origin,omitempty"`
	Delivery    *DeliveryContext `json:"deliveryContext,omitempty"`
	LastChannel string           `json:"lastChannel,omitempty"`
	LastTo      string           `json:"lastTo,omitempty"`
	LastAccount string           `json:"lastAccountId,omitempty"`

	// Spawn lineage.
	SpawnedBy  string `json:"spawnedBy,omitempty"`
	SpawnDepth int    `json:"spawnDepth,omitempty"`
	SpawnRunID string `json:"spawnRunId,omitempty"`
	Sandboxed  bool   `json:"sandboxed,omitempty"`
	// ForkedFromParent: the child started with a copy of its requester's
	// transcript (sessions_spawn context "fork").
	ForkedFromParent bool `json:"forkedFromParent,omitempty"`

	// Model is the model reference ("provider/model") the last run used.
	Model string `json:"model,omitempty"`
	// ModelOverride, when set (sessions.patch or a spawn's model), is the
	// model reference runs of this session use instead of the agent's.
	ModelOverride  string `json:"modelOverride,omitempty"`
	ModelProvider  string `json:"modelProvider,omitempty"`
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
	VerboseLevel   string `json:"verboseLevel,omitempty"`
	SendPolicy     string `json:"sendPolicy,omitempty"`
	SystemSent     bool   `json:"systemSent,omitempty"`
	AbortedLastRun bool   `json:"abortedLastRun,omitempty"`

	InputTokens      int64   `json:"inputTokens,omitempty"`
	OutputTokens     int64   `json:"outputTokens,omitempty"`
	TotalTokens      int64   `json:"totalTokens,omitempty"`
	ContextTokens    int64   `json:"contextTokens,omitempty"`
	EstimatedCostUSD float64 `json:"estimatedCostUsd,omitempty"`

	Status    string `json:"status,omitempty"`
	StartedAt int64  `json:"startedAt,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`

	CreatedAt  int64 `json:"createdAt,omitempty"`
	UpdatedAt  int64 `json:"updatedAt"`
	ArchiveAt  int64 `json:"archiveAt,omitempty"`
	ArchivedAt int64 `json:"archivedAt,omitempty"`
}
