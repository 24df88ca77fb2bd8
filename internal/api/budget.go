package api

import (
	"math"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// The limits of a spawn's budget (each field optional; a given one must
// be positive).
var (
	BudgetTokens  = Limit{Name: "budget.tokens", Min: 1, Max: 1_000_000_000, Unit: "tokens"}
	BudgetSeconds = Limit{Name: "budget.seconds", Min: 1, Max: 604_800, Unit: "seconds"}
	// BudgetCostUSD bounds budget.costUsd in whole dollars; the value may
	// be fractional (0 < costUsd <= Max).
	BudgetCostUSD = Limit{Name: "budget.costUsd", Min: 0, Max: 100_000, Unit: "USD"}
)

// SpawnBudget is sessions_spawn's budget: what the child's tree may spend.
// Absent fields fall back to the agent's configured default, and every
// field is capped by what the requester's own budget has left.
type SpawnBudget struct {
	Tokens  *float64 `json:"tokens,omitempty"`
	CostUSD *float64 `json:"costUsd,omitempty"`
	Seconds *float64 `json:"seconds,omitempty"`
}

// Budget validates b against the limits and returns it as a domain
// budget (zero fields: not asked).
func (b *SpawnBudget) Budget() (domain.Budget, error) {
	var out domain.Budget
	if b == nil {
		return out, nil
	}
	if b.Tokens != nil {
		n, err := BudgetTokens.ApplyFloat(*b.Tokens)
		if err != nil {
			return out, err
		}
		out.Tokens = n
	}
	if b.Seconds != nil {
		n, err := BudgetSeconds.ApplyFloat(*b.Seconds)
		if err != nil {
			return out, err
		}
		out.Seconds = n
	}
	if b.CostUSD != nil {
		c := *b.CostUSD
		if math.IsNaN(c) || math.IsInf(c, 0) || c <= 0 || c > float64(BudgetCostUSD.Max) {
			return out, invalidf("%s must be more than 0 and at most %d%s (got %v)", BudgetCostUSD.Name, BudgetCostUSD.Max, BudgetCostUSD.unit(), c)
		}
		out.CostUSD = c
	}
	return out, nil
}
