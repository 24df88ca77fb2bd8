package runs

import (
	"bytes"
	"context"
	"encoding/json"

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
	// overspent is the first account of the chain whose tree spent more
	// than its budget (a run that ends so does not end ok).
	overspent *domain.BudgetExceeded
	// tight is what the tightest budgets of the chain have left (tokens
	// and costUsd; a bound already reached leaves 0 or less), for capping
	// the next model call.
	tight budgetLeft
}

// budgetLeft is what is left of the tightest token and cost budgets.
type budgetLeft struct {
	hasTokens, hasCost bool
	tokens             int64
	cost               float64
	tokensOf, costOf   domain.Account
}

// payerOf is the session whose spawn chain a run also draws on (Spec.Payer),
// read without decoding the whole spec unless the spec names one.
func payerOf(run domain.Run) string {
	if !bytes.Contains(run.Spec, payerKey) {
		return ""
	}
	var p struct {
		Payer string `json:"payer"`
	}
	if json.Unmarshal(run.Spec, &p) != nil {
		return ""
	}
	return p.Payer
}

var payerKey = []byte(`"payer":`)

// budgetsTx reads the budgets of sess's chain inside tx without charging
// anything. A top-level session has no budget (budgets are given at
// spawn), so its claim reads nothing.
// payer, when set, is the session of the budgeted run that caused this one
// (a send's target run, a reply-back turn, an announce step): its chain's
// budgets bound the run too.
func budgetsTx(tx domain.Tx, sess domain.Session, payer string, now int64) (budgetState, error) {
	var st budgetState
	seen := map[string]bool{}
	if sess.SpawnedBy != "" {
		key := sess.Key
		for depth := 0; key != "" && depth < maxTreeDepth; depth++ {
			a, err := tx.GetAccount(key)
			if err != nil {
				return st, err
			}
			if depth == 0 && a.SpawnedBy == "" {
				a.SpawnedBy = sess.SpawnedBy
			}
			seen[key] = true
			st.note(a, now)
			key = a.SpawnedBy
		}
	}
	for depth := 0; payer != "" && !seen[payer] && depth < maxTreeDepth; depth++ {
		a, err := tx.GetAccount(payer)
		if err != nil {
			return st, err
		}
		seen[payer] = true
		st.notePayer(a)
		payer = a.SpawnedBy
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
	st.noteSpend(a)
}

// notePayer folds one account of a payer's chain into st: its token and
// cost bounds only (a caused run outlives its cause's deadline, as a send
// that stops waiting leaves its target's run going).
func (st *budgetState) notePayer(a domain.Account) {
	a.Budget.Seconds, a.DeadlineAt = 0, 0
	if !a.Budget.IsZero() {
		st.bounded = true
	}
	if st.exceeded == nil {
		st.exceeded = a.Check(0)
	}
	st.noteSpend(a)
}

// noteSpend folds a's token and cost bounds into st.
func (st *budgetState) noteSpend(a domain.Account) {
	if st.overspent == nil {
		st.overspent = a.Overspent()
	}
	if b := a.Budget; b.Tokens > 0 {
		left := b.Tokens - a.Usage.Tree.Tokens()
		if !st.tight.hasTokens || left < st.tight.tokens {
			st.tight.hasTokens, st.tight.tokens, st.tight.tokensOf = true, left, a
		}
	}
	if b := a.Budget; b.CostUSD > 0 {
		left := b.CostUSD - a.Usage.Tree.CostUSD
		if !st.tight.hasCost || left < st.tight.cost {
			st.tight.hasCost, st.tight.cost, st.tight.costOf = true, left, a
		}
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
	payer := payerOf(run)
	if add == (domain.UsageTotals{}) {
		return budgetsTx(tx, sess, payer, now)
	}
	// One upsert per level: the session's own account, then each
	// ancestor's tree rollup, found through the accounts' spawnedBy.
	seen := map[string]bool{}
	key, parent := sess.Key, sess.SpawnedBy
	for depth := 0; key != "" && depth < maxTreeDepth; depth++ {
		a, err := tx.AddUsage(key, parent, depth == 0, add)
		if err != nil {
			return st, err
		}
		seen[key] = true
		st.note(a, now)
		key, parent = a.SpawnedBy, ""
	}
	// A run a budgeted run caused spends from that run's chain too: its
	// tokens and cost join the payer's tree rollups (not its own usage).
	paid := domain.UsageTotals{InputTokens: add.InputTokens, OutputTokens: add.OutputTokens, CostUSD: add.CostUSD}
	for depth := 0; payer != "" && !seen[payer] && depth < maxTreeDepth; depth++ {
		a, err := tx.AddUsage(payer, "", false, paid)
		if err != nil {
			return st, err
		}
		seen[payer] = true
		st.notePayer(a)
		payer = a.SpawnedBy
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
func (rt *Runtime) budgetsNow(ctx context.Context, sess domain.Session, payer string) (budgetState, error) {
	var st budgetState
	now := rt.now()
	seen := map[string]bool{}
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
		seen[key] = true
		st.note(a, now)
		key, parent = a.SpawnedBy, ""
	}
	for depth := 0; payer != "" && !seen[payer] && depth < maxTreeDepth; depth++ {
		m, err := rt.opts.Store.GetAccounts(ctx, []string{payer})
		if err != nil {
			return st, err
		}
		seen[payer] = true
		st.notePayer(m[payer])
		payer = m[payer].SpawnedBy
	}
	return st, nil
}

// checkBudget is the check before a model call: the first call uses what
// the claim read; later calls of a run with a budget above it read the
// chain again (siblings and children spend from the same pools).
func (rt *Runtime) checkBudget(ctx context.Context, run domain.Run, sess domain.Session, step int, budget *budgetState) *domain.BudgetExceeded {
	if budget == nil {
		return nil
	}
	if step > 0 && budget.bounded && budget.exceeded == nil {
		if st, err := rt.budgetsNow(ctx, sess, payerOf(run)); err == nil {
			budget.exceeded, budget.tight = st.exceeded, st.tight
		} else {
			rt.log.Warn("budget check: reading accounts failed; using the last charge's", "session", sess.Key, "err", err)
		}
	}
	return budget.exceeded
}
