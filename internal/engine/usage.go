package engine

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/budget"
	"github.com/switchboard-go/switchboard/internal/runspec"

	"github.com/switchboard-go/switchboard/internal/api"
)

// UsageReport sums the usage ledger (operator only).
func (e *Engine) UsageReport(ctx context.Context, p api.Principal, r api.UsageRequest) (_ api.UsageResult, err error) {
	defer e.audited(ctx, p, api.OpUsageReport, "", &err)
	if _, err := e.enter(p, api.OpUsageReport); err != nil {
		return api.UsageResult{}, err
	}
	return budget.Report(ctx, e.store, r)
}

// UsageStatus is a session's usage, budget, running progress and
// children, for session_status (key must be visible to the caller: the
// tool checks it before calling).
func (e *Engine) UsageStatus(ctx context.Context, key string) (api.UsageStatus, error) {
	st, err := e.budgets.Status(ctx, key)
	if err != nil {
		return api.UsageStatus{}, err
	}
	if st.Children, err = e.Children(ctx, key); err != nil {
		return api.UsageStatus{}, err
	}
	return st, nil
}

// payerFor is the session whose spawn-chain budgets pay for the runs a
// call made inside a run causes (a send's target run and the exchange's
// reply-back turns and announce step): the requester when it is a spawned
// session (its chain may be budgeted), else the payer of the calling run
// itself. Calls from outside a run cause nothing a budget bounds.
func (e *Engine) payerFor(ctx context.Context, requesterKey, runID string) string {
	if runID == "" {
		return ""
	}
	if s, err := e.store.GetSession(ctx, requesterKey); err == nil && s.SpawnedBy != "" {
		return requesterKey
	}
	if r, err := e.store.GetRun(ctx, runID); err == nil {
		if spec, err := runspec.Decode(r); err == nil {
			return spec.Payer
		}
	}
	return ""
}
