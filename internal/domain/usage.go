package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// UsageTotals is what a session (or a tree of sessions) has spent: model
// tokens, cost in USD (0 when no price is known) and finished runs.
type UsageTotals struct {
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
	Runs         int64   `json:"runs"`
}

// Tokens is input plus output tokens, what a token budget counts.
func (u UsageTotals) Tokens() int64 { return u.InputTokens + u.OutputTokens }

// Add accumulates o into u.
func (u *UsageTotals) Add(o UsageTotals) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CostUSD += o.CostUSD
	u.Runs += o.Runs
}

// SessionUsage is a session's own usage and its tree's (itself plus every
// session spawned from it, transitively). Both are kept up to date in the
// transaction that adds usage, so reading them never walks the tree.
type SessionUsage struct {
	Self UsageTotals `json:"self"`
	Tree UsageTotals `json:"tree"`
}

// Budget bounds what a spawned session's tree may spend. Zero fields are
// unbounded.
type Budget struct {
	Tokens  int64   `json:"tokens,omitempty"`
	CostUSD float64 `json:"costUsd,omitempty"`
	Seconds int64   `json:"seconds,omitempty"`
}

// IsZero reports a budget that bounds nothing.
func (b Budget) IsZero() bool { return b.Tokens == 0 && b.CostUSD == 0 && b.Seconds == 0 }

// Account is the usage ledger row of one session: its rollups, the budget
// it was given when spawned, and the absolute deadline (Unix ms, 0 = none)
// its seconds budget set. SpawnedBy repeats the session's parent so the
// rollup walks up the tree without reading session rows.
type Account struct {
	SessionKey string       `json:"sessionKey"`
	SpawnedBy  string       `json:"spawnedBy,omitempty"`
	Usage      SessionUsage `json:"usage"`
	Budget     Budget       `json:"budget"`
	StartedAt  int64        `json:"startedAt,omitempty"`
	DeadlineAt int64        `json:"deadlineAt,omitempty"`
}

// BudgetExceeded says which bound of which session's budget a run hit.
type BudgetExceeded struct {
	SessionKey string
	What       string // tokens | costUsd | seconds
	Spent      float64
	Limit      float64
	// PromptTokens, when set, is the estimated prompt of a model call
	// refused because it alone would exceed what is left.
	PromptTokens int64
}

// Error is the run's error text: "budget exceeded: tokens 50,000 of 50,000",
// and for a refused call "budget exceeded: tokens 4 of 5 (the next model
// call's prompt alone is about 37 tokens)".
func (b *BudgetExceeded) Error() string {
	if b.PromptTokens > 0 {
		return fmt.Sprintf("budget exceeded: %s (the next model call's prompt alone is about %s tokens)", b.Amounts(), groupThousands(b.PromptTokens))
	}
	return "budget exceeded: " + b.Amounts()
}

// Amounts is "<what> <spent> of <budget>" ("tokens 50,000 of 50,000").
func (b *BudgetExceeded) Amounts() string {
	return fmt.Sprintf("%s %s of %s", b.What, formatAmount(b.What, b.Spent), formatAmount(b.What, b.Limit))
}

// Check reports the first bound of a's budget its tree has reached
// (spent >= budget), or nil. now is Unix ms, for the seconds bound.
func (a Account) Check(now int64) *BudgetExceeded {
	b := a.Budget
	t := a.Usage.Tree
	switch {
	case b.Tokens > 0 && t.Tokens() >= b.Tokens:
		return &BudgetExceeded{SessionKey: a.SessionKey, What: "tokens", Spent: float64(t.Tokens()), Limit: float64(b.Tokens)}
	case b.CostUSD > 0 && t.CostUSD >= b.CostUSD:
		return &BudgetExceeded{SessionKey: a.SessionKey, What: "costUsd", Spent: t.CostUSD, Limit: b.CostUSD}
	case b.Seconds > 0 && a.DeadlineAt > 0 && now >= a.DeadlineAt:
		spent := b.Seconds
		if a.StartedAt > 0 {
			spent = (now - a.StartedAt) / 1000
		}
		return &BudgetExceeded{SessionKey: a.SessionKey, What: "seconds", Spent: float64(spent), Limit: float64(b.Seconds)}
	}
	return nil
}

// Overspent reports the first bound of a's budget its tree has spent more
// than (spent > budget: tokens or costUsd), or nil. A run whose chain is
// overspent when it ends does not end ok.
func (a Account) Overspent() *BudgetExceeded {
	b := a.Budget
	t := a.Usage.Tree
	switch {
	case b.Tokens > 0 && t.Tokens() > b.Tokens:
		return &BudgetExceeded{SessionKey: a.SessionKey, What: "tokens", Spent: float64(t.Tokens()), Limit: float64(b.Tokens)}
	case b.CostUSD > 0 && t.CostUSD > b.CostUSD:
		return &BudgetExceeded{SessionKey: a.SessionKey, What: "costUsd", Spent: t.CostUSD, Limit: b.CostUSD}
	}
	return nil
}

// Remaining is what is left of a's budget (zero fields: unbounded; a
// spent bound leaves a tiny positive rest so it stays bounded).
func (a Account) Remaining(now int64) Budget {
	var r Budget
	if a.Budget.Tokens > 0 {
		r.Tokens = max(a.Budget.Tokens-a.Usage.Tree.Tokens(), 1)
	}
	if a.Budget.CostUSD > 0 {
		r.CostUSD = max(a.Budget.CostUSD-a.Usage.Tree.CostUSD, 1e-9)
	}
	if a.DeadlineAt > 0 {
		r.Seconds = max((a.DeadlineAt-now+999)/1000, 1)
	}
	return r
}

// Tighter is the smaller of two budgets, field by field (zero: unbounded).
func Tighter(a, b Budget) Budget {
	return Budget{
		Tokens:  minPositive(a.Tokens, b.Tokens),
		CostUSD: minPositive(a.CostUSD, b.CostUSD),
		Seconds: minPositive(a.Seconds, b.Seconds),
	}
}

func minPositive[T int64 | float64](a, b T) T {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

func formatAmount(what string, v float64) string {
	if what == "costUsd" {
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	return groupThousands(int64(v))
}

// GroupThousands writes n with comma separators (50000 → "50,000"), as
// budget errors show amounts.
func GroupThousands(n int64) string { return groupThousands(n) }

// groupThousands writes n with comma separators (50000 → "50,000").
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// UsageEntry is one charge of model usage: a model step of a run.
type UsageEntry struct {
	At           int64   `json:"at"`
	SessionKey   string  `json:"sessionKey"`
	AgentID      string  `json:"agentId"`
	Model        string  `json:"model"`
	RunID        string  `json:"runId"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
}

// UsageQuery asks for usage totals grouped By "agent", "session" or
// "model", over entries at or after Since (Unix ms; 0 = all).
type UsageQuery struct {
	By    string
	Since int64
	Limit int
}

// UsageGroup is one row of a usage report.
type UsageGroup struct {
	Key          string  `json:"key"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
	Steps        int64   `json:"steps"`
	Runs         int64   `json:"runs"`
}
