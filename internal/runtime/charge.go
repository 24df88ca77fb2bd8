package runtime

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// maxTreeDepth bounds the walk up a spawn chain (spawn depth is bounded by
// config far below this; the bound only guards against a corrupt cycle).
const maxTreeDepth = 64

// budgetState is what a run knows of the budgets above it: whether any
// session of its chain has one (only then are the accounts read again
// before each model call), the tightest deadline, and a bound already hit.
type budgetState struct {
	bounded  bool
	deadline int64 // Unix ms; 0 = none
	// deadlineCause ends the run's context at deadline.
	deadlineCause *domain.BudgetExceeded
	exceeded      *domain.BudgetExceeded
}

// budgetsTx reads the budgets of sess's chain inside tx without charging
// anything. A top-level session has no budget (budgets are given at
// spawn), so its claim reads nothing.
func budgetsTx(tx domain.Tx, sess domain.Session, now int64) (budgetState, error) {
	var st budgetState
	if sess.SpawnedBy == "" {
		return st, nil
	}
	key := sess.Key
	for depth := 0; key != "" && depth < maxTreeDepth; depth++ {
		a, err := tx.GetAccount(key)
		if err != nil {
			return st, err
		}
		if depth == 0 && a.SpawnedBy == "" {
			a.SpawnedBy = sess.SpawnedBy
		}
		st.note(a, now)
		key = a.SpawnedBy
	}
	return st, nil
}

// note folds one account of the chain into st.
func (st *budgetState) note(a domain.Account, now int64) {
	if !a.Budget.IsZero() {
		st.bounded = true
	}
	if a.DeadlineAt > 0 && (st.deadline == 0 || a.DeadlineAt < st.deadline) {
		st.deadline = a.DeadlineAt
		secs := float64(max(a.Budget.Seconds, (a.DeadlineAt-a.StartedAt)/1000))
		st.deadlineCause = &domain.BudgetExceeded{SessionKey: a.SessionKey, What: "seconds", Spent: secs, Limit: secs}
	}
	if st.exceeded == nil {
		st.exceeded = a.Check(now)
	}
}

// chargeTx adds one model step's usage (and, when endsRun, one finished
// run) to sess's own account and to the tree rollup of every ancestor, in
// the caller's transaction, records the step in the usage ledger, and
// reports the budgets of the chain after the charge.
func (rt *Runtime) chargeTx(tx domain.Tx, run domain.Run, sess domain.Session, u *domain.Usage, modelRef string, endsRun bool) (budgetState, error) {
	var add domain.UsageTotals
	if u != nil {
		add.InputTokens, add.OutputTokens = u.Input, u.Output
		switch {
		case u.Cost != nil:
			add.CostUSD = u.Cost.Total
		case rt.opts.Price != nil:
			add.CostUSD = rt.opts.Price(modelRef, *u)
		}
	}
	if endsRun {
		add.Runs = 1
	}
	now := rt.now()
	var st budgetState
	if add == (domain.UsageTotals{}) {
		return budgetsTx(tx, sess, now)
	}
	// One upsert per level: the session's own account, then each
	// ancestor's tree rollup, found through the accounts' spawnedBy.
	key, parent := sess.Key, sess.SpawnedBy
	for depth := 0; key != "" && depth < maxTreeDepth; depth++ {
		a, err := tx.AddUsage(key, parent, depth == 0, add)
		if err != nil {
			return st, err
		}
		st.note(a, now)
		key, parent = a.SpawnedBy, ""
	}
	var err error
	if u != nil && (add.InputTokens != 0 || add.OutputTokens != 0 || add.CostUSD != 0) {
		err = tx.RecordUsage(domain.UsageEntry{At: now, SessionKey: sess.Key, AgentID: run.AgentID, Model: modelRef, RunID: run.ID,
			InputTokens: add.InputTokens, OutputTokens: add.OutputTokens, CostUSD: add.CostUSD})
	}
	return st, err
}

// budgetsNow reads the chain's accounts outside a transaction, for the
// check before a model call of a run that has a budget above it.
func (rt *Runtime) budgetsNow(ctx context.Context, sess domain.Session) (budgetState, error) {
	var st budgetState
	now := rt.now()
	key, parent := sess.Key, sess.SpawnedBy
	for depth := 0; key != "" && depth < maxTreeDepth; depth++ {
		m, err := rt.opts.Store.GetAccounts(ctx, []string{key})
		if err != nil {
			return st, err
		}
		a := m[key]
		if a.SpawnedBy == "" {
			a.SpawnedBy = parent
		}
		st.note(a, now)
		key, parent = a.SpawnedBy, ""
	}
	return st, nil
}

// checkBudget is the check before a model call: the first call uses what
// the claim read; later calls of a run with a budget above it read the
// chain again (siblings and children spend from the same pools).
func (rt *Runtime) checkBudget(ctx context.Context, sess domain.Session, step int, budget *budgetState) *domain.BudgetExceeded {
	if budget == nil {
		return nil
	}
	if step > 0 && budget.bounded && budget.exceeded == nil {
		if st, err := rt.budgetsNow(ctx, sess); err == nil {
			budget.exceeded = st.exceeded
		} else {
			rt.log.Warn("budget check: reading accounts failed; using the last charge's", "session", sess.Key, "err", err)
		}
	}
	return budget.exceeded
}
