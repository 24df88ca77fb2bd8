package cli

import "testing"

// TestBudgetFlagErrorsNameTheFlag: a budget value out of range is refused
// with the flag the user typed (--budget-cost), not the wire field
// (budget.costUsd).
func TestBudgetFlagErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		name                  string
		tokens, cost, seconds string
		wantErr               string
	}{
		{name: "tokens zero", tokens: "0", wantErr: "--budget-tokens must be at least 1 token (got 0)"},
		{name: "cost negative", cost: "-1", wantErr: "--budget-cost must be more than 0 and at most 100000 USD (got -1)"},
		{name: "seconds past a week", seconds: "604801", wantErr: "--budget-seconds must be at most 604800 seconds (got 604801)"},
		{name: "not a number", cost: "abc", wantErr: `--budget-cost must be a number (got "abc")`},
		{name: "all valid", tokens: "5000", cost: "0.5", seconds: "60"},
		{name: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := budgetFlags{tokens: &tt.tokens, cost: &tt.cost, seconds: &tt.seconds}
			got, err := b.request()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tt.tokens == "" && tt.cost == "" && tt.seconds == "") {
				t.Errorf("request = %+v", got)
			}
		})
	}
}
