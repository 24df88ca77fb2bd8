// Package budget holds the spend bounds of spawned sessions: what a spawn
// chain has left, whether it is spent, the effective budget of a new
// child, its account, prices of unpriced steps, the usage report, and
// the usage, budget and live progress a listing or a status card shows. The
// runtime charges usage and caps model calls (package runs); the engine
// asks this package before it admits a spawn.
package budget

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// MaxChain bounds walks up a spawn chain (spawn depth is at most 5).
const MaxChain = 64

// Accounts is what the ledger reads of the store.
type Accounts interface {
	GetAccounts(ctx context.Context, keys []string) (map[string]domain.Account, error)
}

// Ledger reads the budgets of spawn chains. Config returns the
// configuration in effect (it may be reloaded); Progress, when set, the
// progress of a session's running run.
type Ledger struct {
	Store    Accounts
	Config   func() *config.Config
	Now      func() time.Time
	Progress func(key string) (domain.Progress, bool)
}

func (l Ledger) nowMs() int64 { return l.Now().UnixMilli() }

// Price is the runtime's price of a model step its provider reported no
// cost for: the provider's configured pricing, else 0.
func (l Ledger) Price(modelRef string, u domain.Usage) float64 {
	v, _ := l.Config().Price(modelRef, u.Input, u.Output)
	return v
}

// ChainRemaining is what the budgets of key and its ancestors leave, field
// by field the tightest (zero: unbounded).
func (l Ledger) ChainRemaining(ctx context.Context, key string) (domain.Budget, error) {
	var left domain.Budget
	now := l.nowMs()
	for depth := 0; key != "" && depth < MaxChain; depth++ {
		m, err := l.Store.GetAccounts(ctx, []string{key})
		if err != nil {
			return left, err
		}
		a := m[key]
		left = domain.Tighter(left, a.Remaining(now))
		key = a.SpawnedBy
	}
	return left, nil
}

// Spawn is what decides a child's budget.
type Spawn struct {
	// Asked is the spawn's budget parameter.
	Asked domain.Budget
	// InRun: the spawn is a tool call inside a run (ctx ends at its
	// deadline).
	InRun bool
	// Requester is the spawning session; Payer, when set, the session
	// whose chain pays for what the calling run causes.
	Requester, Payer string
	// RequesterAgent names the agent whose subagent budget is the default.
	RequesterAgent string
	// Model is the child's model (a costUsd bound needs its price).
	Model string
	// FirstPrompt is the estimate of the child's first prompt in tokens.
	FirstPrompt int64
}

// ForSpawn is a child's effective budget: what the spawn asked for,
// field by field over the requesting agent's configured default, capped
// by what the requester's chain has left and, inside a run, by the
// run's remaining time. A costUsd bound needs a price for the child's
// model.
//
// A spawn whose requester's chain (or the chain of its run's payer) has
// nothing left is refused, and so is one whose effective token budget
// cannot pay for firstPrompt (the estimate of the child's first prompt):
// the child could make no model call.
func (l Ledger) ForSpawn(ctx context.Context, sp Spawn) (domain.Budget, error) {
	requesterKey, payer, model, firstPrompt := sp.Requester, sp.Payer, sp.Model, sp.FirstPrompt
	for _, key := range []string{requesterKey, payer} {
		if key == "" {
			continue
		}
		x, err := l.Exhausted(ctx, key)
		if err != nil {
			return domain.Budget{}, err
		}
		if x != nil {
			return domain.Budget{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: nothing left to give the child (%s)", x.Error())
		}
	}
	def := l.Config().SubagentBudget(sp.RequesterAgent)
	want := domain.Tighter(sp.Asked, domain.Budget{})
	if want.Tokens == 0 {
		want.Tokens = def.Tokens
	}
	if want.CostUSD == 0 {
		want.CostUSD = def.CostUSD
	}
	if want.Seconds == 0 {
		want.Seconds = def.Seconds
	}
	left, err := l.ChainRemaining(ctx, requesterKey)
	if err != nil {
		return domain.Budget{}, err
	}
	if payer != "" && payer != requesterKey {
		paying, err := l.ChainRemaining(ctx, payer)
		if err != nil {
			return domain.Budget{}, err
		}
		left = domain.Tighter(left, paying)
	}
	eff := domain.Tighter(want, left)
	// A tool call's context ends at its run's deadline (runTimeoutSeconds
	// or a seconds budget above it): the child may not outlive it.
	if d, ok := ctx.Deadline(); ok && sp.InRun {
		secs := max(int64((time.Until(d)+time.Second-1)/time.Second), 1)
		eff.Seconds = domain.Tighter(eff, domain.Budget{Seconds: secs}).Seconds
	}
	if eff.Tokens > 0 && eff.Tokens <= firstPrompt {
		return domain.Budget{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: nothing left to give the child (budget tokens left %s; its first prompt alone is about %s tokens)",
			domain.GroupThousands(eff.Tokens), domain.GroupThousands(firstPrompt))
	}
	if eff.CostUSD > 0 {
		if _, ok := l.Config().Pricing(model); !ok {
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

// ChildAccount is the account a spawn writes for its child.
func ChildAccount(childKey, requesterKey string, b domain.Budget, now int64) domain.Account {
	a := domain.Account{SessionKey: childKey, SpawnedBy: requesterKey, Budget: b, StartedAt: now}
	if b.Seconds > 0 {
		a.DeadlineAt = now + b.Seconds*1000
	}
	return a
}

// Exhausted reports the first budget of key's spawn chain that is spent
// (spent >= budget, or its deadline passed), or nil.
func (l Ledger) Exhausted(ctx context.Context, key string) (*domain.BudgetExceeded, error) {
	now := l.nowMs()
	for depth := 0; key != "" && depth < MaxChain; depth++ {
		m, err := l.Store.GetAccounts(ctx, []string{key})
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

// EstimateTokens is the prompt estimate of texts: a token per four
// characters (the runtime's estimate before a model call).
func EstimateTokens(texts ...string) int64 {
	n := 0
	for _, s := range texts {
		n += utf8.RuneCountInString(s)
	}
	return int64((n + 3) / 4)
}

// Reporter is what the usage report reads of the store.
type Reporter interface {
	UsageReport(ctx context.Context, q domain.UsageQuery) ([]domain.UsageGroup, error)
}

// Report validates r and sums the usage ledger by its grouping.
func Report(ctx context.Context, st Reporter, r api.UsageRequest) (api.UsageResult, error) {
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
	groups, err := st.UsageReport(ctx, domain.UsageQuery{By: by, Since: r.Since})
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
