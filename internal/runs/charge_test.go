package runs

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// spendModel calls a tool on every step, each call costing in + out
// tokens, so a run goes on until something stops it.
type spendModel struct {
	in, out int64
	calls   atomic.Int64
}

func (m *spendModel) Name() string                   { return "spend" }
func (m *spendModel) ThinkingLevels(string) []string { return []string{"off"} }
func (m *spendModel) Complete(context.Context, domain.ModelRequest) (domain.ModelResponse, error) {
	m.calls.Add(1)
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant,
		Content: domain.BlockContent(domain.Block{Type: domain.BlockToolCall, ID: domain.NewShortID(4), Name: "noop", Arguments: json.RawMessage(`{}`)}),
		Usage:   &domain.Usage{Input: m.in, Output: m.out, TotalTokens: m.in + m.out}}}, nil
}

type spendModels struct{ m *spendModel }

func (f spendModels) Resolve(string) (domain.Provider, string, error) { return f.m, "spend", nil }

// budgetEnv is a runtime whose model spends 10 tokens a call, with
// sessions created by put (their rows and accounts).
func budgetEnv(t *testing.T, price func(string, domain.Usage) float64) (*env, *spendModel) {
	t.Helper()
	m := &spendModel{in: 6, out: 4}
	e := newEnv(t, func(o *Options) {
		o.Models = spendModels{m}
		o.MaxSteps = 20
		o.Price = price
	})
	return e, m
}

// put writes sessions and accounts in one transaction.
func (e *env) put(sessions []domain.Session, accounts []domain.Account) {
	e.t.Helper()
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		for _, s := range sessions {
			if err := tx.PutSession(s); err != nil {
				return err
			}
		}
		for _, a := range accounts {
			if err := tx.PutAccount(a); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) account(key string) domain.Account {
	e.t.Helper()
	m, err := e.st.GetAccounts(context.Background(), []string{key})
	if err != nil {
		e.t.Fatal(err)
	}
	return m[key]
}

// A spawned session's runs spend from every budget above them: the run
// stops with the bound it hit named, before the model call that would go
// past it, and its spending is in each ancestor's tree rollup.
func TestBudgetAboveStopsRun(t *testing.T) {
	e, m := budgetEnv(t, nil)
	const root, mid, leaf = "agent:main:main", "agent:main:subagent:mid", "agent:main:subagent:leaf"
	e.put([]domain.Session{
		{Key: root, AgentID: "main", SessionID: "s-root", Kind: "other"},
		{Key: mid, AgentID: "main", SessionID: "s-mid", Kind: "other", SpawnedBy: root},
		{Key: leaf, AgentID: "main", SessionID: "s-leaf", Kind: "other", SpawnedBy: mid},
	}, []domain.Account{
		{SessionKey: mid, SpawnedBy: root, Budget: domain.Budget{Tokens: 55}},
		{SessionKey: leaf, SpawnedBy: mid, Budget: domain.Budget{Tokens: 5000}},
	})
	// Only the middle budget is tight enough to stop the leaf's run; a
	// prompt estimate keeps the last call from being sent past it.
	r := e.wait(e.submit(leaf, "go", nil).ID)
	if r.Status != domain.RunError || !strings.HasPrefix(r.Error, "budget exceeded: tokens") {
		t.Fatalf("run = %s %q, want an error naming the tokens budget", r.Status, r.Error)
	}
	calls := m.calls.Load()
	if calls < 2 || calls*10 > 55 {
		t.Fatalf("model calls = %d, want the run stopped before spending past 55 tokens", calls)
	}
	want := calls * 10
	for _, key := range []string{leaf, mid, root} {
		if got := e.account(key).Usage.Tree.Tokens(); got != want {
			t.Errorf("%s tree tokens = %d, want %d (every call charged to every ancestor)", key, got, want)
		}
	}
	if got := e.account(leaf).Usage.Self.Tokens(); got != want {
		t.Errorf("leaf's own tokens = %d, want %d", got, want)
	}
	if got := e.account(mid).Usage.Self.Tokens(); got != 0 {
		t.Errorf("mid's own tokens = %d, want 0 (it made no call)", got)
	}
}

// A cost budget counts the price of each call when the provider reports
// none.
func TestCostBudgetUsesPrice(t *testing.T) {
	e, m := budgetEnv(t, func(model string, u domain.Usage) float64 { return 0.01 })
	const parent, child = "agent:main:main", "agent:main:subagent:c"
	e.put([]domain.Session{
		{Key: parent, AgentID: "main", SessionID: "s-p", Kind: "other"},
		{Key: child, AgentID: "main", SessionID: "s-c", Kind: "other", SpawnedBy: parent},
	}, []domain.Account{{SessionKey: child, SpawnedBy: parent, Budget: domain.Budget{CostUSD: 0.03}}})
	r := e.wait(e.submit(child, "go", nil).ID)
	if r.Status != domain.RunError || !strings.HasPrefix(r.Error, "budget exceeded: costUsd") {
		t.Fatalf("run = %s %q, want an error naming the cost budget", r.Status, r.Error)
	}
	calls := m.calls.Load()
	if calls < 2 || calls > 3 {
		t.Fatalf("model calls = %d, want the run stopped before passing 0.03 USD", calls)
	}
	if got, want := e.account(parent).Usage.Tree.CostUSD, float64(calls)*0.01; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("parent's tree cost = %v, want %v (each call priced)", got, want)
	}
}

// A run caused by a budgeted run (its spec names the payer) is bounded by
// the payer's chain: with the payer's budget spent, no model call is made;
// otherwise its tokens join the payer's tree rollup, not the payer's own.
func TestPayerBudgetBoundsCausedRun(t *testing.T) {
	e, m := budgetEnv(t, nil)
	const spent, open, target = "agent:main:subagent:spent", "agent:main:subagent:open", "agent:main:other"
	e.put([]domain.Session{
		{Key: spent, AgentID: "main", SessionID: "s-spent", Kind: "other", SpawnedBy: "agent:main:main"},
		{Key: open, AgentID: "main", SessionID: "s-open", Kind: "other", SpawnedBy: "agent:main:main"},
		{Key: target, AgentID: "main", SessionID: "s-t", Kind: "other"},
	}, []domain.Account{
		{SessionKey: spent, SpawnedBy: "agent:main:main", Budget: domain.Budget{Tokens: 10},
			Usage: domain.SessionUsage{Tree: domain.UsageTotals{InputTokens: 10}}},
		{SessionKey: open, SpawnedBy: "agent:main:main", Budget: domain.Budget{Tokens: 30}},
	})
	payer := func(p string) func(*domain.Run) {
		return func(r *domain.Run) {
			spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent("go")}, Payer: p})
			r.Spec = spec
		}
	}
	r := e.wait(e.submit(target, "go", payer(spent)).ID)
	if r.Status != domain.RunError || !strings.Contains(r.Error, "budget exceeded: tokens 10 of 10") || m.calls.Load() != 0 {
		t.Fatalf("run = %s %q after %d calls, want refused before any call", r.Status, r.Error, m.calls.Load())
	}
	r = e.wait(e.submit(target, "go", payer(open)).ID)
	if r.Status != domain.RunError || !strings.HasPrefix(r.Error, "budget exceeded: tokens") {
		t.Fatalf("second run = %s %q, want stopped by the payer's budget", r.Status, r.Error)
	}
	calls := m.calls.Load()
	a := e.account(open)
	if a.Usage.Tree.Tokens() != calls*10 || a.Usage.Self.Tokens() != 0 {
		t.Errorf("payer usage = %+v after %d calls, want tree %d and own 0", a.Usage, calls, calls*10)
	}
	if got := e.account(target).Usage.Self.Tokens(); got != calls*10 {
		t.Errorf("target's own tokens = %d, want %d", got, calls*10)
	}
}
