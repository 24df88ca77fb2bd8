package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// budgetFlags are spawn's --budget-tokens, --budget-cost and
// --budget-seconds, kept as text until the command runs so a bad value is
// a usage error naming the flag.
type budgetFlags struct {
	tokens, cost, seconds *string
}

func (b *budgetFlags) define(fs *flag.FlagSet) {
	b.tokens = fs.String("budget-tokens", "", "the child tree may spend at most `N` tokens ("+api.BudgetTokens.Describe()+")")
	b.cost = fs.String("budget-cost", "", "the child tree may spend at most `USD` (needs models.providers.<name>.pricing)")
	b.seconds = fs.String("budget-seconds", "", "the child tree must finish within `SECONDS` ("+api.BudgetSeconds.Describe()+")")
}

// request is the budget the flags ask for, nil when none was given.
func (b *budgetFlags) request() (*api.SpawnBudget, error) {
	var out api.SpawnBudget
	any := false
	for _, f := range []struct {
		name string
		text *string
		dst  **float64
	}{{"budget-tokens", b.tokens, &out.Tokens}, {"budget-cost", b.cost, &out.CostUSD}, {"budget-seconds", b.seconds, &out.Seconds}} {
		if *f.text == "" {
			continue
		}
		v, err := strconv.ParseFloat(*f.text, 64)
		if err != nil {
			return nil, fmt.Errorf("--%s must be a number (got %q)", f.name, *f.text)
		}
		*f.dst = &v
		any = true
	}
	if !any {
		return nil, nil
	}
	if _, err := out.Budget(); err != nil {
		return nil, err
	}
	return &out, nil
}

// budgetText is a budget in words: "tokens 50,000, costUsd 0.5000, seconds 60".
func budgetText(b domain.Budget) string {
	var parts []string
	if b.Tokens > 0 {
		parts = append(parts, "tokens "+groupDigits(b.Tokens))
	}
	if b.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("costUsd %.4f", b.CostUSD))
	}
	if b.Seconds > 0 {
		parts = append(parts, fmt.Sprintf("seconds %d", b.Seconds))
	}
	if len(parts) == 0 {
		return "unbounded"
	}
	return strings.Join(parts, ", ")
}

// groupDigits writes n with comma separators.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
