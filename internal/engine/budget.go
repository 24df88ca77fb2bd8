package engine

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// maxChain bounds walks up a spawn chain (spawn depth is at most 5).
const maxChain = 64

// price is the runtime's price of a model step its provider reported no
// cost for: the provider's configured pricing, else 0.
func (e *Engine) price(modelRef string, u domain.Usage) float64 {
	v, _ := e.conf().Price(modelRef, u.Input, u.Output)
	return v
}

// chainRemaining is what the budgets of key and its ancestors leave, field
// by field the tightest (zero: unbounded).
func (e *Engine) chainRemaining(ctx context.Context, key string) (domain.Budget, error) {
	var left domain.Budget
	now := e.nowMs()
	for depth := 0; key != "" && depth < maxChain; depth++ {
		m, err := e.store.GetAccounts(ctx, []string{key})
		if err != nil {
			return left, err
		}
		a := m[key]
		left = domain.Tighter(left, a.Remaining(now))
		key = a.SpawnedBy
	}
	return left, nil
}

// spawnBudget is a child's effective budget: what the spawn asked for,
// field by field over the requesting agent's configured default, capped
// by what the requester's chain has left and, inside a run, by the
// run's remaining time. A costUsd bound needs a price for the child's
// model.
//
// A spawn whose requester's chain (or the chain of its run's payer) has
// nothing left is refused, and so is one whose effective token budget
// cannot pay for firstPrompt (the estimate of the child's first prompt):
// the child could make no model call.
func (e *Engine) spawnBudget(ctx context.Context, p api.SpawnRequest, inRun bool, requesterKey, payer, requesterAgent, model string, firstPrompt int64) (domain.Budget, error) {
	asked, err := p.Budget.Budget()
	if err != nil {
		return domain.Budget{}, err
	}
	for _, key := range []string{requesterKey, payer} {
		if key == "" {
			continue
		}
		x, err := e.exhausted(ctx, key)
		if err != nil {
			return domain.Budget{}, err
		}
		if x != nil {
			return domain.Budget{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: nothing left to give the child (%s)", x.Error())
		}
	}
	def := e.conf().SubagentBudget(requesterAgent)
	want := domain.Tighter(asked, domain.Budget{})
	if want.Tokens == 0 {
		want.Tokens = def.Tokens
	}
	if want.CostUSD == 0 {
		want.CostUSD = def.CostUSD
	}
	if want.Seconds == 0 {
		want.Seconds = def.Seconds
	}
	left, err := e.chainRemaining(ctx, requesterKey)
	if err != nil {
		return domain.Budget{}, err
	}
	if payer != "" && payer != requesterKey {
		paying, err := e.chainRemaining(ctx, payer)
		if err != nil {
			return domain.Budget{}, err
		}
		left = domain.Tighter(left, paying)
	}
	eff := domain.Tighter(want, left)
	// A tool call's context ends at its run's deadline (runTimeoutSeconds
	// or a seconds budget above it): the child may not outlive it.
	if d, ok := ctx.Deadline(); ok && inRun {
		secs := max(int64((time.Until(d)+time.Second-1)/time.Second), 1)
		eff.Seconds = domain.Tighter(eff, domain.Budget{Seconds: secs}).Seconds
	}
	if eff.Tokens > 0 && eff.Tokens <= firstPrompt {
		return domain.Budget{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: nothing left to give the child (budget tokens left %s; its first prompt alone is about %s tokens)",
			domain.GroupThousands(eff.Tokens), domain.GroupThousands(firstPrompt))
	}
	if eff.CostUSD > 0 {
		if _, ok := e.conf().Pricing(model); !ok {
			return domain.Budget{}, domain.Invalid("budget.costUsd needs a price for model %q: set models.providers.%s.pricing (USD per million tokens)", model, providerOf(model))
		}
	}
	return eff, nil
}

// providerOf is the provider part of a model reference.
func providerOf(ref string) string {
	for i := range len(ref) {
		if ref[i] == '/' {
			return ref[:i]
		}
	}
	return ref
}

// childAccount is the account a spawn writes for its child.
func childAccount(childKey, requesterKey string, b domain.Budget, now int64) domain.Account {
	a := domain.Account{SessionKey: childKey, SpawnedBy: requesterKey, Budget: b, StartedAt: now}
	if b.Seconds > 0 {
		a.DeadlineAt = now + b.Seconds*1000
	}
	return a
}

// attachUsage adds each row's usage rollups and budget: one read of the
// rows' accounts by key (the rollups are kept as usage is charged, so no
// tree is walked here).
func (e *Engine) attachUsage(ctx context.Context, out []api.SessionRow, rows []domain.Session) error {
	if len(rows) == 0 {
		return nil
	}
	keys := make([]string, len(rows))
	for i, s := range rows {
		keys[i] = s.Key
	}
	accts, err := e.store.GetAccounts(ctx, keys)
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
		if p, ok := e.rt.SessionProgress(s.Key); ok {
			out[i].Progress = &p
		}
	}
	return nil
}

// deadlineMargin is kept back from a run's deadline when a wait inside it
// is clamped, so the wait answers before the run itself is stopped.
const deadlineMargin = 50 * time.Millisecond

// clampToDeadline shortens a wait made inside a run to the run's
// remaining time (its context's deadline: runTimeoutSeconds or a seconds
// budget above it).
func clampToDeadline(ctx context.Context, wait time.Duration, inRun bool) time.Duration {
	d, ok := ctx.Deadline()
	if !ok || !inRun {
		return wait
	}
	left := time.Until(d) - deadlineMargin
	if left < wait {
		return max(left, time.Millisecond)
	}
	return wait
}

// UsageReport sums the usage ledger (operator only).
func (e *Engine) UsageReport(ctx context.Context, p api.Principal, r api.UsageRequest) (api.UsageResult, error) {
	if _, err := e.enter(p, api.OpUsageReport); err != nil {
		return api.UsageResult{}, err
	}
	by := r.By
	if by == "" {
		by = "agent"
	}
	if !slices.Contains(api.UsageBy, by) {
		return api.UsageResult{}, domain.Invalid("by must be one of %s (got %q)", strings.Join(api.UsageBy, ", "), r.By)
	}
	if r.Since < 0 {
		return api.UsageResult{}, domain.Invalid("since must be a time (Unix ms >= 0; got %d)", r.Since)
	}
	limit, err := api.UsageLimit.Apply(int64(r.Limit))
	if err != nil {
		return api.UsageResult{}, err
	}
	if r.Limit == 0 {
		limit = api.UsageLimit.Default
	}
	groups, err := e.store.UsageReport(ctx, domain.UsageQuery{By: by, Since: r.Since})
	if err != nil {
		return api.UsageResult{}, err
	}
	out := api.UsageResult{By: by, Since: r.Since, Groups: groups, Total: domain.UsageGroup{Key: "total"}}
	for _, g := range groups {
		out.Total.InputTokens += g.InputTokens
		out.Total.OutputTokens += g.OutputTokens
		out.Total.CostUSD += g.CostUSD
		out.Total.Steps += g.Steps
		out.Total.Runs += g.Runs
	}
	if len(out.Groups) > int(limit) {
		out.Groups = out.Groups[:limit]
	}
	return out, nil
}

// UsageStatus is a session's usage, budget, running progress and
// children, for session_status (key must be visible to the caller: the
// tool checks it before calling).
func (e *Engine) UsageStatus(ctx context.Context, key string) (api.UsageStatus, error) {
	accts, err := e.store.GetAccounts(ctx, []string{key})
	if err != nil {
		return api.UsageStatus{}, err
	}
	a := accts[key]
	st := api.UsageStatus{Usage: a.Usage, BudgetDeadline: a.DeadlineAt}
	if !a.Budget.IsZero() {
		b := a.Budget
		st.Budget = &b
	}
	if p, ok := e.rt.SessionProgress(key); ok {
		st.Progress = &p
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
func (e *Engine) payerFor(ctx context.Context, req Requester, requesterKey string) string {
	if req.RunID == "" {
		return ""
	}
	if s, err := e.store.GetSession(ctx, requesterKey); err == nil && s.SpawnedBy != "" {
		return requesterKey
	}
	if r, err := e.store.GetRun(ctx, req.RunID); err == nil {
		if spec, err := decodeSpec(r); err == nil {
			return spec.Payer
		}
	}
	return ""
}

// exhausted reports the first budget of key's spawn chain that is spent
// (spent >= budget, or its deadline passed), or nil.
func (e *Engine) exhausted(ctx context.Context, key string) (*domain.BudgetExceeded, error) {
	now := e.nowMs()
	for depth := 0; key != "" && depth < maxChain; depth++ {
		m, err := e.store.GetAccounts(ctx, []string{key})
		if err != nil {
			return nil, err
		}
		if x := m[key].Check(now); x != nil {
			return x, nil
		}
		key = m[key].SpawnedBy
	}
	return nil, nil
}

// estimateTokens is the prompt estimate of texts: a token per four
// characters (the runtime's estimate before a model call).
func estimateTokens(texts ...string) int64 {
	n := 0
	for _, s := range texts {
		n += utf8.RuneCountInString(s)
	}
	return int64((n + 3) / 4)
}
