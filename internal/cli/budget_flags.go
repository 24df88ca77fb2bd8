package cli

import (
	"errors"
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
		name  string
		field string // the wire name the api's errors use
		text  *string
		set   func(*api.SpawnBudget, *float64)
	}{
		{"budget-tokens", api.BudgetTokens.Name, b.tokens, func(b *api.SpawnBudget, v *float64) { b.Tokens = v }},
		{"budget-cost", api.BudgetCostUSD.Name, b.cost, func(b *api.SpawnBudget, v *float64) { b.CostUSD = v }},
		{"budget-seconds", api.BudgetSeconds.Name, b.seconds, func(b *api.SpawnBudget, v *float64) { b.Seconds = v }},
	} {
		if *f.text == "" {
			continue
		}
		v, err := strconv.ParseFloat(*f.text, 64)
		if err != nil {
			return nil, fmt.Errorf("--%s must be a number (got %q)", f.name, *f.text)
		}
		// Each flag goes through the api's one check on its own, and its
		// error names the flag the user typed, not the wire field.
		var one api.SpawnBudget
		f.set(&one, &v)
		if _, err := one.Budget(); err != nil {
			return nil, errors.New(strings.Replace(domain.ErrorMessage(err), f.field, "--"+f.name, 1))
		}
		f.set(&out, &v)
		any = true
	}
	if !any {
		return nil, nil
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
