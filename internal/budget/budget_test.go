package budget

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// accounts is a hand-written fake of the store's accounts.
type accounts map[string]domain.Account

func (a accounts) GetAccounts(_ context.Context, keys []string) (map[string]domain.Account, error) {
	out := map[string]domain.Account{}
	for _, k := range keys {
		if v, ok := a[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func spent(tokens int64) domain.SessionUsage {
	return domain.SessionUsage{Tree: domain.UsageTotals{InputTokens: tokens}}
}

// chain is root ← mid ← leaf: root has 1,000 tokens and spent 400, mid
// has 300 and spent 100, leaf is unbounded.
func chain() accounts {
	return accounts{
		"root": {SessionKey: "root", Budget: domain.Budget{Tokens: 1000}, Usage: spent(400)},
		"mid":  {SessionKey: "mid", SpawnedBy: "root", Budget: domain.Budget{Tokens: 300}, Usage: spent(100)},
		"leaf": {SessionKey: "leaf", SpawnedBy: "mid"},
		"dry":  {SessionKey: "dry", SpawnedBy: "root", Budget: domain.Budget{Tokens: 50}, Usage: spent(50)},
	}
}

func ledger(a accounts) Ledger {
	return Ledger{Store: a, Config: func() *config.Config { return &config.Config{} }, Now: func() time.Time { return time.UnixMilli(1_000) }}
}

func TestChainRemainingTakesTheTightest(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want int64
	}{
		{"leaf", 200}, {"mid", 200}, {"root", 600}, {"unknown", 0},
	} {
		got, err := ledger(chain()).ChainRemaining(context.Background(), tc.key)
		if err != nil || got.Tokens != tc.want {
			t.Errorf("ChainRemaining(%s) = %+v, %v; want %d tokens", tc.key, got, err, tc.want)
		}
	}
}

func TestForSpawn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sp      Spawn
		want    int64
		wantErr string
	}{
		{"asked within the chain", Spawn{Asked: domain.Budget{Tokens: 150}, Requester: "leaf"}, 150, ""},
		{"capped by the chain", Spawn{Asked: domain.Budget{Tokens: 5000}, Requester: "leaf"}, 200, ""},
		{"unasked takes what is left", Spawn{Requester: "root"}, 600, ""},
		{"nothing left", Spawn{Requester: "dry"}, 0, "nothing left to give the child"},
		{"payer spent", Spawn{Requester: "root", Payer: "dry"}, 0, "nothing left to give the child"},
		{"first prompt too big", Spawn{Asked: domain.Budget{Tokens: 10}, Requester: "leaf", FirstPrompt: 10}, 0, "first prompt alone"},
		{"cost needs a price", Spawn{Asked: domain.Budget{CostUSD: 1}, Model: "x/y"}, 0, "needs a price for model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ledger(chain()).ForSpawn(context.Background(), tc.sp)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ForSpawn = %+v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got.Tokens != tc.want {
				t.Errorf("ForSpawn = %+v, %v; want %d tokens", got, err, tc.want)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	if got := EstimateTokens("abcd", "é"); got != 2 {
		t.Errorf("EstimateTokens = %d; want 2 (a token per four characters, rounded up)", got)
	}
}
