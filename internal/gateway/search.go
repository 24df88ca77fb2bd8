package gateway

import (
	"context"
	"net/http"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// sessions_search on the native surfaces: `GET /api/search` and the WS
// method `sessions.search`. Both carry the tool's parameters into one
// api.SearchRequest and answer its result with canonical keys
// (docs/design.md#principals-scopes-and-the-gate); the engine validates every parameter.

// apiSearch is GET /api/search?query=…&kinds=…&agent=…&sinceMinutes=…&limit=…&cursor=…
// (`q` is accepted for query).
func (s *Server) apiSearch(r *http.Request, g grant) (any, error) {
	p := g.principal(as(r))
	q := r.URL.Query()
	req := api.SearchRequest{Query: q.Get("query"), Kinds: queryList(r, "kinds"), AgentID: q.Get("agent"), Cursor: q.Get("cursor")}
	if req.Query == "" {
		req.Query = q.Get("q")
	}
	for name, dst := range map[string]*int{"limit": &req.Limit, "sinceMinutes": &req.SinceMinutes} {
		n, err := queryInt(r, name, 0)
		if err != nil {
			return nil, err
		}
		if n != nil {
			if *n > 1<<31 {
				*n = 1 << 31 // clamped or refused by the engine's limit
			}
			*dst = int(*n)
		}
	}
	res, err := s.eng.Search(r.Context(), p, req)
	if err != nil {
		return nil, err
	}
	s.printer(r.Context(), p).hits(res.Results)
	return res, nil
}

type sessionsSearchParams struct {
	Query        string   `json:"query"`
	Kinds        []string `json:"kinds"`
	AgentID      string   `json:"agentId"`
	SinceMinutes *api.Int `json:"sinceMinutes"`
	Limit        *api.Int `json:"limit"`
	Cursor       string   `json:"cursor"`
}

// mSessionsSearch is the WS method sessions.search.
func (s *Server) mSessionsSearch(ctx context.Context, cl *call) (any, error) {
	var p sessionsSearchParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	req := api.SearchRequest{Query: p.Query, Kinds: p.Kinds, AgentID: strings.TrimSpace(p.AgentID), Cursor: p.Cursor}
	for _, f := range []struct {
		v   *int64
		l   api.Limit
		dst *int
	}{{p.Limit.Int64(), api.SearchLimit, &req.Limit}, {p.SinceMinutes.Int64(), api.SearchSinceMinutes, &req.SinceMinutes}} {
		if f.v == nil {
			continue
		}
		n, err := f.l.Apply(*f.v)
		if err != nil {
			return nil, invalidParams(cl.method, "%s", domain.ErrorMessage(err))
		}
		*f.dst = int(n)
	}
	pr := cl.principal("")
	res, err := s.eng.Search(ctx, pr, req)
	if err != nil {
		return nil, err
	}
	s.printer(ctx, pr).hits(res.Results)
	out := wsSearchResult{Results: make([]wsSearchHit, len(res.Results)), NextCursor: res.NextCursor}
	for i, h := range res.Results {
		out.Results[i] = wsSearchHit{SearchHit: h, Score: 1}
	}
	return out, nil
}

// wsSearchResult is sessions.search's answer in OpenClaw's shape
// (SessionsSearchResultSchema: results, each with a score), plus
// switchboard's paging cursor.
type wsSearchResult struct {
	Results    []wsSearchHit `json:"results"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// wsSearchHit is a hit with OpenClaw's score. Every hit holds every word
// of the query and hits come newest first, so all score the same.
type wsSearchHit struct {
	api.SearchHit
	Score float64 `json:"score"`
}

// hits rewrites the keys of search results in place.
func (k keyPrinter) hits(hits []api.SearchHit) {
	for i := range hits {
		hits[i].SessionKey = k.key(hits[i].SessionKey)
	}
}
