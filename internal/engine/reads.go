package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/query"
)

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
