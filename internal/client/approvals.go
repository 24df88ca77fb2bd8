package client

import (
	"context"
	"net/http"
	"strconv"

	"github.com/switchboard-go/switchboard/internal/api"
)

// ApprovalGet is GET /api/approvals/{id}.
func (c *Client) ApprovalGet(ctx context.Context, p api.Principal, req api.ApprovalGetRequest) (api.ApprovalGetResult, error) {
	h, q := as(p)
	var out api.ApprovalGetResult
	err := c.do(ctx, http.MethodGet, apiPath("approvals", req.ID), q, h, nil, &out)
	return out, err
}

// ApprovalResolve is POST /api/approvals/{id}/resolve.
func (c *Client) ApprovalResolve(ctx context.Context, p api.Principal, req api.ApprovalResolveRequest) (api.ApprovalResolveResult, error) {
	h, q := as(p)
	var out api.ApprovalResolveResult
	err := c.do(ctx, http.MethodPost, apiPath("approvals", req.ID, "resolve"), q, h, req, &out)
	return out, err
}

// ApprovalHistory is GET /api/approvals/history.
func (c *Client) ApprovalHistory(ctx context.Context, p api.Principal, req api.ApprovalHistoryRequest) (api.ApprovalHistoryResult, error) {
	h, q := as(p)
	setStr(q, "cursor", req.Cursor)
	setStr(q, "kind", req.Kind)
	if req.Limit != nil {
		q.Set("limit", strconv.Itoa(*req.Limit))
	}
	var out api.ApprovalHistoryResult
	err := c.do(ctx, http.MethodGet, apiPath("approvals", "history"), q, h, nil, &out)
	return out, err
}

// ApprovalList is GET /api/approvals.
func (c *Client) ApprovalList(ctx context.Context, p api.Principal, _ api.ApprovalListRequest) (api.ApprovalListResult, error) {
	h, q := as(p)
	var out api.ApprovalListResult
	err := c.do(ctx, http.MethodGet, apiPath("approvals"), q, h, nil, &out)
	return out, err
}

var _ api.Approvals = (*Client)(nil)
