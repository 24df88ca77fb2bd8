package budget

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Attach adds each row's usage rollups and budget: one read of the
// rows' accounts by key (the rollups are kept as usage is charged, so no
// tree is walked here).
func (l Ledger) Attach(ctx context.Context, out []api.SessionRow, rows []domain.Session) error {
	if len(rows) == 0 {
		return nil
	}
	keys := make([]string, len(rows))
	for i, s := range rows {
		keys[i] = s.Key
	}
	accts, err := l.Store.GetAccounts(ctx, keys)
	if err != nil {
		return err
	}
	usage := make([]domain.SessionUsage, len(rows)) // one allocation, not one per row
	for i, s := range rows {
		a := accts[s.Key]
		usage[i] = a.Usage
		out[i].Usage = &usage[i]
		if !a.Budget.IsZero() {
			b := a.Budget
			out[i].Budget = &b
			out[i].BudgetDeadline = a.DeadlineAt
		}
		if p, ok := l.progress(s.Key); ok {
			out[i].Progress = &p
		}
	}
	return nil
}

// Status is key's usage, budget and live progress (session_status
// adds its children).
func (l Ledger) Status(ctx context.Context, key string) (api.UsageStatus, error) {
	accts, err := l.Store.GetAccounts(ctx, []string{key})
	if err != nil {
		return api.UsageStatus{}, err
	}
	a := accts[key]
	st := api.UsageStatus{Usage: a.Usage, BudgetDeadline: a.DeadlineAt}
	if !a.Budget.IsZero() {
		b := a.Budget
		st.Budget = &b
	}
	if p, ok := l.progress(key); ok {
		st.Progress = &p
	}
	return st, nil
}

func (l Ledger) progress(key string) (domain.Progress, bool) {
	if l.Progress == nil {
		return domain.Progress{}, false
	}
	return l.Progress(key)
}
