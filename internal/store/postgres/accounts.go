package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Usage accounts and the usage ledger: the SQLite store's accounts.go in
// PostgreSQL's dialect (the same statements, $n parameters).

const accountColumns = `session_key, spawned_by, self_input, self_output, self_cost, self_runs,
	tree_input, tree_output, tree_cost, tree_runs, budget_tokens, budget_cost, budget_seconds, started_at, deadline_at`

const (
	selectAccount = `SELECT ` + accountColumns + ` FROM session_accounts WHERE session_key = $1`
	upsertAccount = `INSERT INTO session_accounts (` + accountColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
	ON CONFLICT (session_key) DO UPDATE SET (` + accountColumns + `) = (EXCLUDED.session_key, EXCLUDED.spawned_by,
		EXCLUDED.self_input, EXCLUDED.self_output, EXCLUDED.self_cost, EXCLUDED.self_runs, EXCLUDED.tree_input, EXCLUDED.tree_output,
		EXCLUDED.tree_cost, EXCLUDED.tree_runs, EXCLUDED.budget_tokens, EXCLUDED.budget_cost, EXCLUDED.budget_seconds,
		EXCLUDED.started_at, EXCLUDED.deadline_at)`
	addUsage = `INSERT INTO session_accounts (` + accountColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, 0, 0, 0, 0)
	ON CONFLICT (session_key) DO UPDATE SET
		spawned_by  = CASE WHEN session_accounts.spawned_by = '' THEN EXCLUDED.spawned_by ELSE session_accounts.spawned_by END,
		self_input  = session_accounts.self_input + EXCLUDED.self_input,
		self_output = session_accounts.self_output + EXCLUDED.self_output,
		self_cost   = session_accounts.self_cost + EXCLUDED.self_cost,
		self_runs   = session_accounts.self_runs + EXCLUDED.self_runs,
		tree_input  = session_accounts.tree_input + EXCLUDED.tree_input,
		tree_output = session_accounts.tree_output + EXCLUDED.tree_output,
		tree_cost   = session_accounts.tree_cost + EXCLUDED.tree_cost,
		tree_runs   = session_accounts.tree_runs + EXCLUDED.tree_runs
	RETURNING ` + accountColumns
	insertUsage = `INSERT INTO usage_ledger (at, session_key, agent_id, model, run_id, input_tokens, output_tokens, cost_usd)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
)

type scanner interface{ Scan(dest ...any) error }

func scanAccount(r scanner) (domain.Account, error) {
	var a domain.Account
	s, t, b := &a.Usage.Self, &a.Usage.Tree, &a.Budget
	err := r.Scan(&a.SessionKey, &a.SpawnedBy, &s.InputTokens, &s.OutputTokens, &s.CostUSD, &s.Runs,
		&t.InputTokens, &t.OutputTokens, &t.CostUSD, &t.Runs, &b.Tokens, &b.CostUSD, &b.Seconds, &a.StartedAt, &a.DeadlineAt)
	return a, err
}

// GetAccount reads key's account in the transaction (zero when none).
func (t *tx) GetAccount(key string) (domain.Account, error) {
	if err := t.check(); err != nil {
		return domain.Account{}, err
	}
	a, err := scanAccount(t.queryRow(selectAccount, key))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Account{SessionKey: key}, nil
	}
	if err != nil {
		return a, fmt.Errorf("get account %q: %w", key, err)
	}
	return a, nil
}

// PutAccount writes a.SessionKey's account.
func (t *tx) PutAccount(a domain.Account) error {
	if err := t.check(); err != nil {
		return err
	}
	if a.SessionKey == "" {
		return domain.Invalid("put account: session key is required")
	}
	s, tr, b := a.Usage.Self, a.Usage.Tree, a.Budget
	if _, err := t.exec(upsertAccount, a.SessionKey, a.SpawnedBy, s.InputTokens, s.OutputTokens, s.CostUSD, s.Runs,
		tr.InputTokens, tr.OutputTokens, tr.CostUSD, tr.Runs, b.Tokens, b.CostUSD, b.Seconds, a.StartedAt, a.DeadlineAt); err != nil {
		return fmt.Errorf("put account %q: %w", a.SessionKey, err)
	}
	return nil
}

// AddUsage adds to key's counters and returns the account after the add.
func (t *tx) AddUsage(key, spawnedBy string, self bool, add domain.UsageTotals) (domain.Account, error) {
	if err := t.check(); err != nil {
		return domain.Account{}, err
	}
	if key == "" {
		return domain.Account{}, domain.Invalid("add usage: session key is required")
	}
	var s domain.UsageTotals
	if self {
		s = add
	}
	a, err := scanAccount(t.queryRow(addUsage, key, spawnedBy, s.InputTokens, s.OutputTokens, s.CostUSD, s.Runs,
		add.InputTokens, add.OutputTokens, add.CostUSD, add.Runs))
	if err != nil {
		return a, fmt.Errorf("add usage to %q: %w", key, err)
	}
	return a, nil
}

// RecordUsage appends one charge to the ledger (sent with the next
// statement or the commit).
func (t *tx) RecordUsage(e domain.UsageEntry) error {
	if err := t.check(); err != nil {
		return err
	}
	t.deferWrite(fmt.Sprintf("record usage of %q", e.SessionKey), insertUsage,
		e.At, e.SessionKey, e.AgentID, pgText(e.Model), e.RunID, e.InputTokens, e.OutputTokens, e.CostUSD)
	return nil
}

// GetAccounts reads the accounts of keys by primary key.
func (s *Store) GetAccounts(ctx context.Context, keys []string) (map[string]domain.Account, error) {
	out := make(map[string]domain.Account, len(keys))
	if len(keys) > 0 {
		rows, err := s.pool.Query(ctx, `SELECT `+accountColumns+` FROM session_accounts WHERE session_key = ANY($1)`, keys)
		if err != nil {
			return nil, s.readErr("get accounts", err)
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanAccount(rows)
			if err != nil {
				return nil, s.readErr("get accounts", err)
			}
			out[a.SessionKey] = a
		}
		if err := rows.Err(); err != nil {
			return nil, s.readErr("get accounts", err)
		}
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			out[k] = domain.Account{SessionKey: k}
		}
	}
	return out, nil
}

var usageGroupColumn = map[string]string{"agent": "agent_id", "session": "session_key", "model": "model"}

// UsageReport sums the ledger grouped by q.By, largest first.
func (s *Store) UsageReport(ctx context.Context, q domain.UsageQuery) ([]domain.UsageGroup, error) {
	by := q.By
	if by == "" {
		by = "agent"
	}
	col, ok := usageGroupColumn[by]
	if !ok {
		return nil, domain.Invalid("usage report: by must be agent, session or model (got %q)", q.By)
	}
	if q.Limit < 0 {
		return nil, domain.Invalid("usage report: limit must be >= 0 (got %d)", q.Limit)
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + col + `, sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cost_usd), count(*), count(DISTINCT run_id)
	FROM usage_ledger WHERE at >= $1 GROUP BY ` + col + ` ORDER BY sum(input_tokens) + sum(output_tokens) DESC, ` + col + ` COLLATE "C"`)
	args := []any{q.Since}
	if q.Limit > 0 {
		b.WriteString(` LIMIT $2`)
		args = append(args, q.Limit)
	}
	rows, err := s.pool.Query(ctx, b.String(), args...)
	if err != nil {
		return nil, s.readErr("usage report", err)
	}
	defer rows.Close()
	out := []domain.UsageGroup{}
	for rows.Next() {
		var g domain.UsageGroup
		if err := rows.Scan(&g.Key, &g.InputTokens, &g.OutputTokens, &g.CostUSD, &g.Steps, &g.Runs); err != nil {
			return nil, s.readErr("usage report", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("usage report", err)
	}
	return out, nil
}
