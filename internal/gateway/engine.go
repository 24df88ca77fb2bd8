package gateway

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// Engine is what the gateway needs of the engine: the api.Service every
// method and endpoint translates to, plus the server plumbing below.
// None of these decides who may do what: every call that acts for a
// caller is an api.Service call with the caller's principal, gated by
// the engine.
type Engine interface {
	api.Service
	api.Operators
	api.Auditor
	// Record appends to the audit log (token uses, the gateway's own
	// refusals and admin actions).
	audit.Recorder
	api.Approvals

	// Subscribe delivers engine events (the WS fan-out and metrics).
	Subscribe(buffer int) (<-chan domain.Event, func())
	// Visible is the rule that filters events for non-operators.
	Visible(ctx context.Context, p api.Principal, key string) bool
	// SubscribeKey is the key sessions.messages.subscribe subscribes to:
	// a session p may see, existing or not yet.
	SubscribeKey(ctx context.Context, p api.Principal, ref string) (string, error)
	// Stats reports lane depth and active runs (metrics).
	Stats() (queued, active int)
	// OutboxPasses counts the outbox worker's completed passes (metrics).
	OutboxPasses() uint64
}

var _ Engine = (*engine.Engine)(nil)
