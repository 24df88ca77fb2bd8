package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/switchboard-go/switchboard/internal/api"
)

var _ api.Auditor = (*Client)(nil)

// AuditList is GET /api/audit (audit.list).
func (c *Client) AuditList(ctx context.Context, p api.Principal, req api.AuditListRequest) (api.AuditListResult, error) {
	h, q := as(p)
	for name, v := range map[string]string{"agentId": req.AgentID, "sessionKey": req.SessionKey, "runId": req.RunID,
		"kind": req.Kind, "status": req.Status, "cursor": req.Cursor} {
		setNonEmpty(q, name, v)
	}
	for name, v := range map[string]*int64{"after": req.After, "before": req.Before, "limit": req.Limit} {
		if v != nil {
			q.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	var out api.AuditListResult
	err := c.do(ctx, http.MethodGet, apiPath("audit"), q, h, nil, &out)
	return out, err
}

// AuditChain is GET /api/audit/chain (audit.chain.list).
func (c *Client) AuditChain(ctx context.Context, p api.Principal, req api.AuditChainRequest) (api.AuditChainResult, error) {
	h, q := as(p)
	setNonEmpty(q, "cursor", req.Cursor)
	if req.Limit != nil {
		q.Set("limit", strconv.FormatInt(*req.Limit, 10))
	}
	var out api.AuditChainResult
	err := c.do(ctx, http.MethodGet, apiPath("audit", "chain"), q, h, nil, &out)
	return out, err
}

func setNonEmpty(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}
