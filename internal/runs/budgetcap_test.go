package runs

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestCapToBudget(t *testing.T) {
	prompt := domain.ModelRequest{System: strings.Repeat("x", 400)} // about 100 tokens
	tokens := func(left int64) budgetLeft {
		return budgetLeft{hasTokens: true, tokens: left, tokensOf: domain.Account{SessionKey: "k", Budget: domain.Budget{Tokens: 1000}}}
	}
	price := func(_ string, u domain.Usage) float64 { return float64(u.Input+u.Output) / 1000 } // $0.001 a token
	for _, tc := range []struct {
		name    string
		tight   budgetLeft
		price   func(string, domain.Usage) float64
		wantMax int
		refused string
	}{
		{name: "unbounded", tight: budgetLeft{}},
		{name: "room for 50 more", tight: tokens(150), wantMax: 50},
		{name: "prompt alone reaches it", tight: tokens(100), refused: "budget exceeded: tokens 0 of 1,000 (the next model call's prompt alone is about 100 tokens)"},
		{name: "a large budget sets no cap", tight: tokens(1_000_000)},
		{name: "cost leaves 0.02 (rounded down)", tight: budgetLeft{hasCost: true, cost: 0.12, costOf: domain.Account{Budget: domain.Budget{CostUSD: 1}}}, price: price, wantMax: 19},
		{name: "cost without a price sets no cap", tight: budgetLeft{hasCost: true, cost: 0.12}},
	} {
		req := prompt
		x := capToBudget(&req, tc.tight, "m", tc.price)
		if tc.refused != "" {
			if x == nil || x.Error() != tc.refused {
				t.Errorf("%s: refusal %v, want %q", tc.name, x, tc.refused)
			}
			continue
		}
		if x != nil || req.MaxTokens != tc.wantMax {
			t.Errorf("%s: maxTokens %d, refusal %v; want %d", tc.name, req.MaxTokens, x, tc.wantMax)
		}
	}
}
