package rowcodec

import (
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// ApprovalColumns are the approvals table's columns, in the order of
// ApprovalValues and ApprovalRow.Dest.
const ApprovalColumns = `id, tool, rule, edge, requester_key, requester_agent, target_key, target_agent,
	summary, call, status, decision, resolver, created_at, expires_at, resolved_at`

// ApprovalColumnCount is the number of ApprovalColumns.
const ApprovalColumnCount = 16

// ApprovalValues are a's column values in ApprovalColumns order. The held
// call is kept as its JSON text (NULL when there is none) and must be
// JSON. text converts every text column for a backend that cannot store
// some character (nil: as is).
func ApprovalValues(a domain.Approval, text func(string) string) ([]any, error) {
	if len(a.Call) > 0 && !json.Valid(a.Call) {
		return nil, domain.Invalid("approval %q: call is not valid JSON", a.ID)
	}
	if text == nil {
		text = func(s string) string { return s }
	}
	var call any
	if len(a.Call) > 0 {
		call = string(a.Call)
	}
	return []any{text(a.ID), text(a.Tool), a.Rule, text(a.Edge), text(a.RequesterKey), text(a.RequesterAgent),
		text(a.TargetKey), text(a.TargetAgent), text(a.Summary), call, text(string(a.Status)),
		text(a.Decision), text(a.Resolver), a.CreatedAt, a.ExpiresAt, a.ResolvedAt}, nil
}

// ApprovalRow is one approvals row being read: scan the columns into
// Dest, then take Approval.
type ApprovalRow struct {
	a    domain.Approval
	call *string
}

// Dest are the scan destinations of ApprovalColumns, in order.
func (r *ApprovalRow) Dest() []any {
	a := &r.a
	return []any{&a.ID, &a.Tool, &a.Rule, &a.Edge, &a.RequesterKey, &a.RequesterAgent, &a.TargetKey, &a.TargetAgent,
		&a.Summary, &r.call, &a.Status, &a.Decision, &a.Resolver, &a.CreatedAt, &a.ExpiresAt, &a.ResolvedAt}
}

// Approval is the approval the scanned row holds.
func (r *ApprovalRow) Approval() domain.Approval {
	a := r.a
	if r.call != nil {
		a.Call = []byte(*r.call)
	}
	return a
}
