package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
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
func (e *Engine) Search(ctx context.Context, p api.Principal, r api.SearchRequest) (api.SearchResult, error) {
	req, err := e.enter(p, api.OpSessionsSearch)
	if err != nil {
		return api.SearchResult{}, err
	}
	return e.reads.Search(ctx, e.guardFor(ctx, req), req.agent(e), r)
}
