package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// testAccounts: usage accounts (issue 16). A missing account reads as a
// zero one; PutAccount round-trips; AddUsage creates, adds, keeps the
// first spawnedBy, adds to self only when asked, and a rolled-back fn
// leaves no trace; GetAccounts answers every key asked.
func testAccounts(t *testing.T, st domain.Store) {
	ctx := context.Background()
	m, err := st.GetAccounts(ctx, []string{"agent:main:none"})
	if err != nil || m["agent:main:none"] != (domain.Account{SessionKey: "agent:main:none"}) {
		t.Fatalf("missing account = %+v, %v", m, err)
	}
	want := domain.Account{SessionKey: "agent:main:subagent:a", SpawnedBy: "agent:main:main",
		Budget: domain.Budget{Tokens: 5000, CostUSD: 0.5, Seconds: 60}, StartedAt: 1000, DeadlineAt: 61_000}
	update(t, st, func(tx domain.Tx) error { return tx.PutAccount(want) })
	add := domain.UsageTotals{InputTokens: 10, OutputTokens: 2, CostUSD: 0.25, Runs: 1}
	var afterSelf, afterParent domain.Account
	update(t, st, func(tx domain.Tx) error {
		var err error
		if afterSelf, err = tx.AddUsage("agent:main:subagent:a", "ignored:because-set", true, add); err != nil {
			return err
		}
		afterParent, err = tx.AddUsage("agent:main:main", "", false, add)
		return err
	})
	want.Usage = domain.SessionUsage{Self: add, Tree: add}
	if afterSelf != want {
		t.Fatalf("AddUsage self = %+v, want %+v", afterSelf, want)
	}
	if afterParent.Usage.Self != (domain.UsageTotals{}) || afterParent.Usage.Tree != add || afterParent.SpawnedBy != "" {
		t.Fatalf("AddUsage parent = %+v", afterParent)
	}
	boom := errors.New("boom")
	if err := st.Update(ctx, func(tx domain.Tx) error {
		if _, err := tx.AddUsage("agent:main:main", "", true, add); err != nil {
			return err
		}
		return boom
	}); err == nil {
		t.Fatal("a failing fn committed")
	}
	m, err = st.GetAccounts(ctx, []string{"agent:main:subagent:a", "agent:main:main"})
	if err != nil {
		t.Fatal(err)
	}
	if m["agent:main:subagent:a"] != want || m["agent:main:main"].Usage.Tree != add || m["agent:main:main"].Usage.Self.InputTokens != 0 {
		t.Fatalf("accounts = %+v", m)
	}
	update(t, st, func(tx domain.Tx) error {
		got, err := tx.GetAccount("agent:main:subagent:a")
		if err == nil && got != want {
			t.Errorf("tx GetAccount = %+v", got)
		}
		return err
	})
}

// testUsageReport: the ledger sums by agent, session and model, honours
// Since, and refuses an unknown grouping.
func testUsageReport(t *testing.T, st domain.Store) {
	ctx := context.Background()
	update(t, st, func(tx domain.Tx) error {
		for _, e := range []domain.UsageEntry{
			{At: 100, SessionKey: "agent:main:main", AgentID: "main", Model: "script", RunID: "r1", InputTokens: 10, OutputTokens: 1},
			{At: 200, SessionKey: "agent:main:main", AgentID: "main", Model: "script", RunID: "r1", InputTokens: 20, OutputTokens: 2},
			{At: 300, SessionKey: "agent:beta:main", AgentID: "beta", Model: "openai/x", RunID: "r2", InputTokens: 5, OutputTokens: 5, CostUSD: 0.5},
		} {
			if err := tx.RecordUsage(e); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := st.UsageReport(ctx, domain.UsageQuery{By: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (domain.UsageGroup{Key: "main", InputTokens: 30, OutputTokens: 3, Steps: 2, Runs: 1}) ||
		got[1] != (domain.UsageGroup{Key: "beta", InputTokens: 5, OutputTokens: 5, CostUSD: 0.5, Steps: 1, Runs: 1}) {
		t.Fatalf("by agent = %+v", got)
	}
	got, err = st.UsageReport(ctx, domain.UsageQuery{By: "model", Since: 200})
	if err != nil || len(got) != 2 || got[0].Key != "script" || got[0].InputTokens != 20 {
		t.Fatalf("by model since 200 = %+v, %v", got, err)
	}
	if _, err := st.UsageReport(ctx, domain.UsageQuery{By: "planet"}); err == nil {
		t.Fatal("by planet accepted")
	}
}
