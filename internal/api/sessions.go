package api

import (
	"github.com/switchboard-go/switchboard/internal/domain"
)

// ListRequest are sessions_list's parameters.
type ListRequest struct {
	Kinds         []string
	Limit         int
	ActiveMinutes int
	MessageLimit  int
	// Offset skips this many rows of the list order (ListOffset).
	Offset int
	// Operator-only filters (CLI, gateway, web UI).
	AgentID         string
	Search          string
	Label           string
	SpawnedBy       string
	IncludeArchived bool
	// IncludeLastMessage adds each row's lastMessagePreview and
	// IncludeDerivedTitles its derivedTitle (OpenClaw's sessions.list
	// flags; each costs a transcript read per row, so they are asked for).
	IncludeLastMessage   bool
	IncludeDerivedTitles bool
}

// SessionRow is one row of sessions_list, in the reference's row shape.
type SessionRow struct {
	Key     string `json:"key"`
	Kind    string `json:"kind"`
	Channel string `json:"channel"`
	// ChatType is direct, group or channel: the session's stored one,
	// else the one its key implies.
	ChatType    string `json:"chatType,omitempty"`
	AgentID     string `json:"agentId,omitempty"`
	Label       string `json:"label,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	// DerivedTitle (includeDerivedTitles) is displayName, else label,
	// else the generation's first user message, else "<sessionId
	// prefix> (<date>)"; at most ListDerivedTitleChars.
	DerivedTitle string `json:"derivedTitle,omitempty"`
	// LastMessagePreview (includeLastMessage) is the text of the newest
	// user or assistant message, at most ListPreviewChars.
	LastMessagePreview string                  `json:"lastMessagePreview,omitempty"`
	Origin             *domain.Origin          `json:"origin,omitempty"`
	SpawnedBy          string                  `json:"spawnedBy,omitempty"`
	ParentSessionKey   string                  `json:"parentSessionKey,omitempty"`
	SpawnDepth         int                     `json:"spawnDepth,omitempty"`
	ForkedFromParent   bool                    `json:"forkedFromParent,omitempty"`
	DeliveryContext    *domain.DeliveryContext `json:"deliveryContext,omitempty"`
	UpdatedAt          int64                   `json:"updatedAt"`
	SessionID          string                  `json:"sessionId"`
	Model              string                  `json:"model,omitempty"`
	ModelProvider      string                  `json:"modelProvider,omitempty"`
	ContextTokens      int64                   `json:"contextTokens,omitempty"`
	InputTokens        int64                   `json:"inputTokens,omitempty"`
	OutputTokens       int64                   `json:"outputTokens,omitempty"`
	TotalTokens        int64                   `json:"totalTokens,omitempty"`
	EstimatedCostUSD   float64                 `json:"estimatedCostUsd,omitempty"`
	Status             string                  `json:"status,omitempty"`
	StartedAt          int64                   `json:"startedAt,omitempty"`
	EndedAt            int64                   `json:"endedAt,omitempty"`
	RuntimeMs          int64                   `json:"runtimeMs,omitempty"`
	ThinkingLevel      string                  `json:"thinkingLevel,omitempty"`
	VerboseLevel       string                  `json:"verboseLevel,omitempty"`
	SystemSent         bool                    `json:"systemSent"`
	AbortedLastRun     bool                    `json:"abortedLastRun"`
	SendPolicy         string                  `json:"sendPolicy,omitempty"`
	LastChannel        string                  `json:"lastChannel,omitempty"`
	LastTo             string                  `json:"lastTo,omitempty"`
	LastAccountID      string                  `json:"lastAccountId,omitempty"`
	TranscriptPath     string                  `json:"transcriptPath,omitempty"`
	ArchivedAt         int64                   `json:"archivedAt,omitempty"`
	Messages           []ListMessage           `json:"messages,omitempty"`
	// Usage is the session's own usage and its spawn tree's (itself and
	// every descendant), maintained as usage is charged.
	Usage *domain.SessionUsage `json:"usage,omitempty"`
	// Budget is what the session's tree may spend (spawned sessions with
	// a budget only); BudgetDeadline is when its seconds run out (Unix ms).
	Budget         *domain.Budget `json:"budget,omitempty"`
	BudgetDeadline int64          `json:"budgetDeadline,omitempty"`
	// Progress is what the session's running run is doing, while one runs
	// in this process.
	Progress *domain.Progress `json:"progress,omitempty"`
}

// ListResult is the payload of sessions_list.
type ListResult struct {
	Count    int          `json:"count"`
	Sessions []SessionRow `json:"sessions"`
	// HasMore says rows follow this page; NextOffset is then the offset
	// of the next page (OpenClaw 2026.9).
	HasMore    bool `json:"hasMore"`
	NextOffset *int `json:"nextOffset,omitempty"`
}

// HistoryRequest are sessions_history's parameters.
type HistoryRequest struct {
	SessionKey   string
	Limit        int
	IncludeTools bool
	// Raw skips sanitizing (operator surfaces such as chat.history and
	// the web UI, which show full transcripts).
	Raw bool
	// MaxChars cuts each text field to this many UTF-16 units plus the
	// truncation marker (chat.history's maxChars): raw messages are cut
	// to it; sanitized ones to the smaller of it and the sanitizer's cap.
	// 0 = no cut beyond the sanitizer's.
	MaxChars int
	// BeforeSeq pages backwards (operator surfaces).
	BeforeSeq int64
	// BeforeMessageID pages backwards from a message id: only older
	// messages. An id the session's transcript does not have is an error.
	BeforeMessageID string
	// Offset skips this many of the newest messages (counted after
	// BeforeMessageID, when given, and after leaving tool results out).
	Offset int
}

// HistoryMessage is a transcript message with its stable id, which
// beforeMessageId and sessions_search's messageId name.
type HistoryMessage struct {
	ID string `json:"id,omitempty"`
	domain.Message
}

// HistoryResult is the payload of sessions_history.
type HistoryResult struct {
	SessionKey       string           `json:"sessionKey"`
	SessionID        string           `json:"sessionId,omitempty"`
	Messages         []HistoryMessage `json:"messages"`
	Truncated        bool             `json:"truncated"`
	DroppedMessages  bool             `json:"droppedMessages"`
	ContentTruncated bool             `json:"contentTruncated"`
	ContentRedacted  bool             `json:"contentRedacted"`
	Bytes            int              `json:"bytes"`
	// HasMore says older messages exist; NextBeforeMessageID is then the
	// id of the oldest message returned: pass it as beforeMessageId for
	// the next page. Unlike offset it stays right while messages arrive.
	HasMore             bool   `json:"hasMore"`
	NextBeforeMessageID string `json:"nextBeforeMessageId,omitempty"`
}

// PatchRequest changes session settings. Every field keeps OpenClaw's three
// states (api.Nullable): absent leaves the setting as it is, null clears it
// (the session inherits again), and a value sets it. "" or blanks are a
// value, which the engine refuses naming the field, as OpenClaw's
// sessions.patch does (`invalid label: empty`, `invalid sendPolicy (use
// "allow"|"deny")`, …): no surface turns "" into "clear".
type PatchRequest struct {
	Key           string
	Label         Nullable
	SendPolicy    Nullable
	Model         Nullable
	ThinkingLevel Nullable
	VerboseLevel  Nullable
}

// PatchFields are sessions.patch's settings by their wire names, in the
// order surfaces list them; each is a field of PatchRequest.
var PatchFields = []string{"label", "sendPolicy", "model", "thinkingLevel", "verboseLevel"}

// Field returns the PatchRequest field of a wire name (PatchFields), or
// nil for another name.
func (r *PatchRequest) Field(name string) *Nullable {
	switch name {
	case "label":
		return &r.Label
	case "sendPolicy":
		return &r.SendPolicy
	case "model":
		return &r.Model
	case "thinkingLevel":
		return &r.ThinkingLevel
	case "verboseLevel":
		return &r.VerboseLevel
	}
	return nil
}

// Empty reports whether the request changes nothing.
func (r *PatchRequest) Empty() bool {
	for _, name := range PatchFields {
		if r.Field(name).Given() {
			return false
		}
	}
	return true
}

// ResetRequest starts a new transcript generation for a session.
type ResetRequest struct {
	Key string
}

// DeleteRequest removes a session (never the main one).
type DeleteRequest struct {
	Key string
}

// DeleteResult says which session was deleted.
type DeleteResult struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

// ResolveRequest finds a session by exactly one of key, sessionId or
// label (AgentID narrows a label search).
type ResolveRequest struct {
	Key       string
	SessionID string
	Label     string
	AgentID   string
}

// ResolveResult is the session a ResolveRequest found (canonical key).
type ResolveResult struct {
	Key string `json:"key"`
}

// AgentsListResult is the payload of agents_list: the agents the
// requester may spawn under, and the remote A2A agents of a2a.remotes
// (sessions_send targets only; never spawn targets).
type AgentsListResult struct {
	Requester string            `json:"requester"`
	AllowAny  bool              `json:"allowAny"`
	Agents    []AgentInfo       `json:"agents"`
	Remotes   []RemoteAgentInfo `json:"remotes"`
}

// RemoteAgentInfo is one remote A2A agent of agents_list: its id (keys
// `agent:<id>:<rest>` reach it), its agent card URL, and whether the
// requester may send to it (the cross-agent rules: tools.sessions.visibility
// "all" and tools.agentToAgent).
type RemoteAgentInfo struct {
	ID string `json:"id"`
	// URL is the card URL, credentials masked; only the operator sees it.
	URL     string `json:"url,omitempty"`
	Allowed bool   `json:"allowed"`
}

// AgentInfo is one agent of agents_list.
type AgentInfo struct {
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	Model string `json:"model,omitempty"`
	// Configured is false for allow-listed ids missing from agents.list;
	// sessions_spawn refuses them.
	Configured bool `json:"configured"`
}

// SetNext fills NextBeforeMessageID from the page when HasMore is set.
func (r *HistoryResult) SetNext() {
	if r.HasMore && len(r.Messages) > 0 {
		r.NextBeforeMessageID = r.Messages[0].ID
	}
}
