package gateway

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// Engine is what the gateway needs of the engine: the api.Service every
// method and endpoint translates to, plus the few things only a server
// needs. None of these decides who may do what; where one acts for a
// caller the gateway first passes the caller's principal to the engine's
// gate (api.Authorize, Visible, or a Service call on the same session).
type Engine interface {
	api.Service

	// Subscribe delivers engine events (the WS fan-out and metrics).
	Subscribe(buffer int) (<-chan domain.Event, func())
	// Visible is the rule that filters events for non-operators.
	Visible(ctx context.Context, p api.Principal, key string) bool
	// Stats reports lane depth and active runs (metrics).
	Stats() (queued, active int)
	// Resolve finds a session key by key, sessionId or label
	// (sessions.resolve; the answer is checked with Visible).
	Resolve(ctx context.Context, key, sessionID, label, agentID string) (string, error)
	// Deliver queues a direct outbound message (the WS `send`, an
	// operator-only operation: api.OpDeliver).
	Deliver(ctx context.Context, req engine.DeliverRequest) (domain.OutboxItem, error)
	// Session reads a session row the caller was just allowed to act on
	// (model and levels shown beside a gated answer).
	Session(ctx context.Context, ref string) (domain.Session, error)
	// TranscriptPath is where a session's transcript lives.
	TranscriptPath(s domain.Session) string
}

var _ Engine = (*engine.Engine)(nil)
