package api

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Service is every operation a surface offers. Each call carries the
// principal that makes it; the implementation gates it (scope, binding,
// visibility, idempotency) before acting. *engine.Engine implements it
// in-process and *client.Client against a gateway.
type Service interface {
	// The session tools, typed.
	ListSessions(ctx context.Context, p Principal, req ListRequest) (ListResult, error)
	History(ctx context.Context, p Principal, req HistoryRequest) (HistoryResult, error)
	Send(ctx context.Context, p Principal, req SendRequest) (SendResult, error)
	Spawn(ctx context.Context, p Principal, req SpawnRequest) (SpawnResult, error)
	AgentsList(ctx context.Context, p Principal) (AgentsListResult, error)
	// Search finds messages by their words in the sessions p may read
	// (sessions_search).
	Search(ctx context.Context, p Principal, req SearchRequest) (SearchResult, error)
	// Subagents lists or cancels the requester's sub-agents.
	Subagents(ctx context.Context, p Principal, req SubagentsRequest) (SubagentsResult, error)
	// Yield ends the turn of the principal's current run (sessions_yield);
	// outside a run it is an error.
	Yield(ctx context.Context, p Principal, req YieldRequest) (YieldResult, error)
	// SessionStatus is a session's status card (session_status), and
	// switches its model override when req.Model is set.
	SessionStatus(ctx context.Context, p Principal, req StatusRequest) (StatusResult, error)
	// CallTool calls a tool by name with JSON arguments (MCP, the WS
	// `tools.invoke`, `POST /api/tools/{name}`). Unknown tools, bad
	// arguments and refusals are error outcomes, not Go errors.
	CallTool(ctx context.Context, p Principal, name string, args json.RawMessage) ToolOutcome

	// Chat is a user message arriving on a channel.
	Chat(ctx context.Context, p Principal, req ChatRequest) (ChatResult, error)

	// Runs.
	GetRun(ctx context.Context, p Principal, runID string) (domain.Run, error)
	WaitRun(ctx context.Context, p Principal, req WaitRequest) (domain.Run, error)
	CancelRun(ctx context.Context, p Principal, runID string) (CancelResult, error)
	ListRuns(ctx context.Context, p Principal, req RunsRequest) ([]domain.Run, error)

	// Sessions.
	Patch(ctx context.Context, p Principal, req PatchRequest) (domain.Session, error)
	Reset(ctx context.Context, p Principal, req ResetRequest) (domain.Session, error)
	Delete(ctx context.Context, p Principal, req DeleteRequest) (DeleteResult, error)
	// Resolve finds a session by key, sessionId or label; a session the
	// principal may not see answers exactly as an unknown one.
	Resolve(ctx context.Context, p Principal, req ResolveRequest) (ResolveResult, error)
	// GetSession is one session row (ref: a key, `main` or a sessionId),
	// visible sessions only.
	GetSession(ctx context.Context, p Principal, ref string) (SessionRow, error)
	// Defaults are the session defaults as the principal sees them.
	Defaults(ctx context.Context, p Principal) (Defaults, error)

	// Outbox lists deliveries (operator only).
	Outbox(ctx context.Context, p Principal, req OutboxRequest) ([]domain.OutboxItem, error)
	// Deliver queues a direct outbound message (operator only).
	Deliver(ctx context.Context, p Principal, req DeliverRequest) (DeliverResult, error)
	// UsageReport sums model usage by agent, session or model (operator only).
	UsageReport(ctx context.Context, p Principal, req UsageRequest) (UsageResult, error)
}
