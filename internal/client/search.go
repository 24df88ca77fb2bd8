package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
)

// Search is sessions_search as p (GET /api/search).
func (c *Client) Search(ctx context.Context, p api.Principal, req api.SearchRequest) (api.SearchResult, error) {
	h, q := as(p)
	q.Set("query", req.Query)
	setNonZero(q, "limit", req.Limit)
	setNonZero(q, "sinceMinutes", req.SinceMinutes)
	if len(req.Kinds) > 0 {
		q.Set("kinds", strings.Join(req.Kinds, ","))
	}
	setStr(q, "agent", req.AgentID)
	setStr(q, "cursor", req.Cursor)
	var out api.SearchResult
	err := c.do(ctx, http.MethodGet, apiPath("search"), q, h, nil, &out)
	return out, err
}

// setNonZero sets an integer parameter unless it is zero, so a negative
// value reaches the gateway and is refused there as in-process.
func setNonZero(q url.Values, name string, v int) {
	if v != 0 {
		q.Set(name, strconv.Itoa(v))
	}
}
