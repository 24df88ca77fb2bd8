package api

import "context"

// Operations on approvals of agent-to-agent calls
// (docs/operations.md#approvals). approval.get, approval.resolve and
// approval.history are OpenClaw's methods with its shapes; approval.list
// (the pending approvals) is switchboard's.
const (
	OpApprovalGet     Op = "approval.get"
	OpApprovalResolve Op = "approval.resolve"
	OpApprovalHistory Op = "approval.history"
	OpApprovalList    Op = "approval.list"
)

// ApprovalKindPlugin is the only approval kind switchboard raises: a
// held agent-to-agent call is owned by the gateway, not an exec host.
const ApprovalKindPlugin = "plugin"

// Approval decisions, OpenClaw's.
const (
	DecisionAllowOnce   = "allow-once"
	DecisionAllowAlways = "allow-always"
	DecisionDeny        = "deny"
)

// StatusPendingApproval is the status of a sessions_send or
// sessions_spawn an approval rule holds (docs/tools.md).
const StatusPendingApproval = "pending_approval"

// ApprovalPresentation is the reviewer's view of a held call (OpenClaw's
// plugin presentation).
type ApprovalPresentation struct {
	Kind             string   `json:"kind"`
	Title            string   `json:"title"`
	Description      string   `json:"description"`
	Detail           string   `json:"detail,omitempty"`
	Severity         string   `json:"severity"`
	ToolName         string   `json:"toolName,omitempty"`
	AgentID          string   `json:"agentId,omitempty"`
	AllowedDecisions []string `json:"allowedDecisions"`
}

// ApprovalSource says where a decided approval came from.
type ApprovalSource struct {
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
}

// ApprovalResolver says who decided (kind device, channel, runtime or
// system; id names the token or the chat sender).
type ApprovalResolver struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
}

// ApprovalSnapshot is one approval as every surface shows it (OpenClaw's
// ApprovalSnapshot): a pending one carries sourceSessionKey, a decided
// one its decision, reason, resolvedAtMs, source and resolver.
type ApprovalSnapshot struct {
	ID               string               `json:"id"`
	URLPath          string               `json:"urlPath"`
	CreatedAtMs      int64                `json:"createdAtMs"`
	ExpiresAtMs      int64                `json:"expiresAtMs"`
	Presentation     ApprovalPresentation `json:"presentation"`
	Status           string               `json:"status"`
	SourceSessionKey string               `json:"sourceSessionKey,omitempty"`
	Decision         string               `json:"decision,omitempty"`
	Reason           string               `json:"reason,omitempty"`
	ResolvedAtMs     *int64               `json:"resolvedAtMs,omitempty"`
	Source           *ApprovalSource      `json:"source,omitempty"`
	Resolver         *ApprovalResolver    `json:"resolver,omitempty"`
}

// ApprovalGetRequest names one approval by its full id.
type ApprovalGetRequest struct {
	ID string `json:"id"`
}

// ApprovalGetResult is approval.get's answer.
type ApprovalGetResult struct {
	Approval ApprovalSnapshot `json:"approval"`
}

// ApprovalReviewer is the chat sender who answered (a decision from a
// channel).
type ApprovalReviewer struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
	SenderID  string `json:"senderId"`
}

// ApprovalResolveRequest is approval.resolve's params: the approval, its
// kind (plugin) and the decision.
type ApprovalResolveRequest struct {
	ID       string            `json:"id"`
	Kind     string            `json:"kind"`
	Decision string            `json:"decision"`
	Reviewer *ApprovalReviewer `json:"reviewer,omitempty"`
	// GrantExpiresInDays is accepted for OpenClaw's clients; an
	// allow-always of switchboard stands until the rule changes.
	GrantExpiresInDays *int `json:"grantExpiresInDays,omitempty"`
}

// ApprovalResolveResult is approval.resolve's answer: whether this call's
// decision was the one recorded, and the approval as recorded.
type ApprovalResolveResult struct {
	Applied  bool             `json:"applied"`
	Approval ApprovalSnapshot `json:"approval"`
}

// ApprovalHistoryRequest pages through decided approvals, newest first.
type ApprovalHistoryRequest struct {
	Cursor string `json:"cursor,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
	Kind   string `json:"kind,omitempty"`
}

// ApprovalHistoryResult is approval.history's page.
type ApprovalHistoryResult struct {
	Items      []ApprovalSnapshot `json:"items"`
	NextCursor string             `json:"nextCursor,omitempty"`
}

// ApprovalListRequest is approval.list's params (none yet).
type ApprovalListRequest struct{}

// ApprovalListResult is approval.list's answer: the pending approvals,
// newest first.
type ApprovalListResult struct {
	Items []ApprovalSnapshot `json:"items"`
}

// ApprovalHistoryLimit bounds approval.history's page (OpenClaw's 1..100).
var ApprovalHistoryLimit = Limit{Name: "limit", Min: 1, Max: 100, Default: 50}

// Approvals are the operations on held agent-to-agent calls. The engine
// implements them through its gate, the client against a gateway.
type Approvals interface {
	ApprovalGet(ctx context.Context, p Principal, req ApprovalGetRequest) (ApprovalGetResult, error)
	ApprovalResolve(ctx context.Context, p Principal, req ApprovalResolveRequest) (ApprovalResolveResult, error)
	ApprovalHistory(ctx context.Context, p Principal, req ApprovalHistoryRequest) (ApprovalHistoryResult, error)
	ApprovalList(ctx context.Context, p Principal, req ApprovalListRequest) (ApprovalListResult, error)
}
