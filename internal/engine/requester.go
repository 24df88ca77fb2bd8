package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Requester is who calls a session tool or an engine method. Surfaces with
// operator rights (the CLI without --as, admin gateway calls) set Operator,
// which lifts visibility limits; everything else acts as SessionKey.
type Requester struct {
	// SessionKey is the requester session (canonical or `main`); empty
	// means the default agent's main session.
	SessionKey string
	Operator   bool
	// RunID is set when a tool is called inside a run of a switchboard
	// agent; it enables the reply-back loop and loop safety.
	RunID      string
	ToolCallID string
	// IdempotencyKey makes a state-changing call safe to repeat.
	IdempotencyKey string

	resolved string
	// caller names the principal (name and bound session) that scopes
	// idempotency keys; scoped marks a key already scoped.
	caller string
	scoped bool
	// approved names the approval that allowed this call: the approval
	// gate lets it through (approvals.go).
	approved string
}

// key returns the requester's canonical session key.
func (r Requester) key(e *Engine) string {
	if r.resolved != "" {
		return r.resolved
	}
	if r.SessionKey == "" {
		return sessionkey.Key{AgentID: e.cfg.DefaultAgentID(), Rest: e.cfg.MainKey()}.String()
	}
	k, err := e.keys.Canonical(r.SessionKey, e.cfg.DefaultAgentID())
	if err != nil {
		return r.SessionKey
	}
	return k
}

// agent returns the requester's agent id.
func (r Requester) agent(e *Engine) string {
	if k, err := sessionkey.Parse(r.key(e)); err == nil {
		return k.AgentID
	}
	return e.cfg.DefaultAgentID()
}

// DefaultRequesterKey is the default agent's main session key.
func (e *Engine) DefaultRequesterKey() string { return Requester{}.key(e) }

// guardFor is req's visibility guard (package query).
func (e *Engine) guardFor(ctx context.Context, req Requester) query.Guard {
	return e.reads.GuardFor(ctx, query.Viewer{Key: req.key(e), Agent: req.agent(e), Operator: req.Operator})
}

// sandboxed reports whether session s runs sandboxed now: the current
// configuration wins when it is stricter than the row's creation-time flag.
func (e *Engine) sandboxed(s domain.Session) bool {
	return policy.Sandboxed(e.conf(), s.AgentID, s.Sandboxed)
}
