package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
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

// viewer is req as package query and package sessions see a caller.
func (e *Engine) viewer(req Requester) query.Viewer {
	return query.Viewer{Key: req.key(e), Agent: req.agent(e), Operator: req.Operator}
}

// guardFor is req's visibility guard (package query).
func (e *Engine) guardFor(ctx context.Context, req Requester) query.Guard {
	return e.reads.GuardFor(ctx, e.viewer(req))
}

// resolveRef resolves a session reference as req (sessions.Book.Resolve).
func (e *Engine) resolveRef(ctx context.Context, req Requester, ref string) (string, error) {
	return e.sessions.Resolve(ctx, e.viewer(req), ref)
}

// DisplayKey shows key as the default requester sees it (`main` for its
// main session).
func (e *Engine) DisplayKey(key string) string { return e.sessions.DisplayKey(key) }

// CanonicalKey resolves user input (`main`, a key, a sessionId) to a key.
func (e *Engine) CanonicalKey(ctx context.Context, ref string) (string, error) {
	return e.sessions.CanonicalKey(ctx, ref)
}

// Session returns a session row by reference (key, main or sessionId).
func (e *Engine) Session(ctx context.Context, ref string) (domain.Session, error) {
	return e.sessions.Get(ctx, ref)
}

// TranscriptPath is the JSONL mirror path of a session ("" without a mirror).
func (e *Engine) TranscriptPath(s domain.Session) string { return e.sessions.TranscriptPath(s) }

// sandboxed reports whether session s runs sandboxed now: the current
// configuration wins when it is stricter than the row's creation-time flag.
func (e *Engine) sandboxed(s domain.Session) bool {
	return policy.Sandboxed(e.conf(), s.AgentID, s.Sandboxed)
}

// history is sessions_history for req (package query reads it).
func (e *Engine) history(ctx context.Context, req Requester, p api.HistoryRequest) (api.HistoryResult, error) {
	key, err := e.resolveRef(ctx, req, p.SessionKey)
	if err != nil {
		return api.HistoryResult{}, err
	}
	return e.reads.History(ctx, e.guardFor(ctx, req), key, req.agent(e), p)
}

// Search is sessions_search as the principal: messages of the sessions it
// may read (as sessions_history decides), newest first (package query).
func (e *Engine) Search(ctx context.Context, p api.Principal, r api.SearchRequest) (_ api.SearchResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsSearch, "", &err)
	req, err := e.enter(p, api.OpSessionsSearch)
	if err != nil {
		return api.SearchResult{}, err
	}
	return e.reads.Search(ctx, e.guardFor(ctx, req), req.agent(e), r)
}

// listSessions is sessions_list for req (package query reads it).
func (e *Engine) listSessions(ctx context.Context, req Requester, p api.ListRequest) (api.ListResult, error) {
	v := query.ListView{Operator: req.Operator, Row: func(s domain.Session) api.SessionRow { return e.row(s, req) }, Decorate: e.budgets.Attach}
	return e.reads.List(ctx, e.guardFor(ctx, req), v, p)
}

// row builds the sessions_list row of s as seen by req: the one mapping
// (api.RowOf) with req's view of the keys, the agent's default model and
// the transcript's path.
func (e *Engine) row(s domain.Session, req Requester) api.SessionRow {
	agent := req.agent(e)
	r := api.RowOf(s)
	r.Key = e.keys.Display(s.Key, agent)
	if r.Model == "" {
		r.Model = e.sessions.ModelFor(s)
	}
	if req.Operator {
		r.TranscriptPath = e.TranscriptPath(s)
	}
	if s.SpawnedBy != "" {
		r.SpawnedBy = e.keys.Display(s.SpawnedBy, agent)
		r.ParentSessionKey = r.SpawnedBy
	}
	return r
}
