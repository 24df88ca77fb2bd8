package gateway

import (
	"context"
	"net/http"
	"strconv"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/approvals"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// mApprovalGet is approval.get {id} → {approval} (OpenClaw's method).
func (s *Server) mApprovalGet(ctx context.Context, cl *call) (any, error) {
	var p api.ApprovalGetRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.ApprovalGet(ctx, cl.principal(""), p)
}

// mApprovalResolve is approval.resolve {id, kind, decision} → {applied,
// approval} (OpenClaw's method).
func (s *Server) mApprovalResolve(ctx context.Context, cl *call) (any, error) {
	var p api.ApprovalResolveRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.ApprovalResolve(ctx, cl.principal(""), p)
}

// mApprovalHistory is approval.history {cursor?, limit?, kind?} →
// {items, nextCursor?} (OpenClaw's method).
func (s *Server) mApprovalHistory(ctx context.Context, cl *call) (any, error) {
	var p api.ApprovalHistoryRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.ApprovalHistory(ctx, cl.principal(""), p)
}

// mApprovalList is approval.list {} → {items}: the pending approvals
// (switchboard's; OpenClaw has none).
func (s *Server) mApprovalList(ctx context.Context, cl *call) (any, error) {
	var p api.ApprovalListRequest
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.eng.ApprovalList(ctx, cl.principal(""), p)
}

// apiApprovals is GET /api/approvals → approval.list's answer.
func (s *Server) apiApprovals(r *http.Request, g grant) (any, error) {
	return s.eng.ApprovalList(r.Context(), g.principal(as(r)), api.ApprovalListRequest{})
}

// apiApprovalHistory is GET /api/approvals/history?cursor=&limit= →
// approval.history's answer.
func (s *Server) apiApprovalHistory(r *http.Request, g grant) (any, error) {
	q := r.URL.Query()
	req := api.ApprovalHistoryRequest{Cursor: q.Get("cursor"), Kind: q.Get("kind")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, domain.Invalid("limit %q is not a number", v)
		}
		req.Limit = &n
	}
	return s.eng.ApprovalHistory(r.Context(), g.principal(as(r)), req)
}

// apiApproval is GET /api/approvals/{id} → approval.get's answer.
func (s *Server) apiApproval(r *http.Request, g grant) (any, error) {
	return s.eng.ApprovalGet(r.Context(), g.principal(as(r)), api.ApprovalGetRequest{ID: r.PathValue("id")})
}

// apiApprovalResolve is POST /api/approvals/{id}/resolve {decision,
// kind?} → approval.resolve's answer; kind defaults to plugin.
func (s *Server) apiApprovalResolve(r *http.Request, g grant) (any, error) {
	var b api.ApprovalResolveRequest
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	b.ID = r.PathValue("id")
	if b.Kind == "" {
		b.Kind = api.ApprovalKindPlugin
	}
	return s.eng.ApprovalResolve(r.Context(), g.principal(as(r)), b)
}

// approvalEvent is OpenClaw's session.approval event of an engine
// approval event: phase pending when raised, terminal when decided.
func approvalEvent(ev domain.Event) []outEvent {
	if ev.Approval == nil {
		return nil
	}
	a := *ev.Approval
	phase := "terminal"
	if a.Status == domain.ApprovalPending {
		phase = "pending"
	}
	return []outEvent{{"session.approval", map[string]any{"sessionKey": a.RequesterKey, "updatedAtMs": ev.TS,
		"phase": phase, "approval": approvals.Snapshot(a)}}}
}
