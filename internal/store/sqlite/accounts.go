package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

const accountColumns = `session_key, spawned_by, self_input, self_output, self_cost, self_runs,
	tree_input, tree_output, tree_cost, tree_runs, budget_tokens, budget_cost, budget_seconds, started_at, deadline_at`

const (
	selectAccount = `SELECT ` + accountColumns + ` FROM session_accounts WHERE session_key = ?`
	upsertAccount = `INSERT OR REPLACE INTO session_accounts (` + accountColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// addUsage creates or updates an account by adding to its counters and
	// returns it, in one statement (the charge of a model step walks the
	// spawn chain with it).
	addUsage = `INSERT INTO session_accounts (` + accountColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0)
	ON CONFLICT (session_key) DO UPDATE SET
		spawned_by  = CASE WHEN session_accounts.spawned_by = '' THEN excluded.spawned_by ELSE session_accounts.spawned_by END,
		self_input  = session_accounts.self_input + excluded.self_input,
		self_output = session_accounts.self_output + excluded.self_output,
		self_cost   = session_accounts.self_cost + excluded.self_cost,
		self_runs   = session_accounts.self_runs + excluded.self_runs,
		tree_input  = session_accounts.tree_input + excluded.tree_input,
		tree_output = session_accounts.tree_output + excluded.tree_output,
		tree_cost   = session_accounts.tree_cost + excluded.tree_cost,
		tree_runs   = session_accounts.tree_runs + excluded.tree_runs
	RETURNING ` + accountColumns
	// updateUsage writes the counters of an account the writer holds
	// (writercache.go): the add is done in Go, the row is found by its key.
	updateUsage = `UPDATE session_accounts SET spawned_by = ?, self_input = ?, self_output = ?, self_cost = ?, self_runs = ?,
		tree_input = ?, tree_output = ?, tree_cost = ?, tree_runs = ? WHERE session_key = ?`
	insertUsage = `INSERT INTO usage_ledger (at, session_key, agent_id, model, run_id, input_tokens, output_tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
)

func scanAccount(r rowScanner) (domain.Account, error) {
	var a domain.Account
	s, t, b := &a.Usage.Self, &a.Usage.Tree, &a.Budget
	err := r.Scan(&a.SessionKey, &a.SpawnedBy, &s.InputTokens, &s.OutputTokens, &s.CostUSD, &s.Runs,
		&t.InputTokens, &t.OutputTokens, &t.CostUSD, &t.Runs, &b.Tokens, &b.CostUSD, &b.Seconds, &a.StartedAt, &a.DeadlineAt)
	return a, err
}

// GetAccount reads the account of key inside the transaction; a key
// without one gets a zero account.
func (t *tx) GetAccount(key string) (domain.Account, error) {
	if err := t.check(); err != nil {
		return domain.Account{}, err
	}
	a, err := scanAccount(t.queryRow(selectAccount, key))
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Account{SessionKey: key}, nil
	}
	if err != nil {
		return a, fmt.Errorf("get account %q: %w", key, err)
	}
	return a, nil
}

// PutAccount writes the account of a.SessionKey.
func (t *tx) PutAccount(a domain.Account) error {
	if err := t.check(); err != nil {
		return err
	}
	if a.SessionKey == "" {
		return domain.Invalid("put account: session key is required")
	}
	s, tr, b := a.Usage.Self, a.Usage.Tree, a.Budget
	// Marked before the write: if this fn fails, the cache forgets it.
	t.touch(a.SessionKey)
	if _, err := t.exec(upsertAccount, a.SessionKey, a.SpawnedBy, s.InputTokens, s.OutputTokens, s.CostUSD, s.Runs,
		tr.InputTokens, tr.OutputTokens, tr.CostUSD, tr.Runs, b.Tokens, b.CostUSD, b.Seconds, a.StartedAt, a.DeadlineAt); err != nil {
		t.s.cache.forget([]string{a.SessionKey})
		return fmt.Errorf("put account %q: %w", a.SessionKey, err)
	}
	t.s.cache.putAccount(a)
	return nil
}

// AddUsage adds to key's counters and returns its account after the add.
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
	if t.s.writeFailed != nil {
		return domain.Account{}, t.s.writeFailed
	}
	// Marked before the write: if this fn fails, the cache forgets it.
	t.touch(key)
	if a, ok := t.s.cache.account(key); ok {
		if a.SpawnedBy == "" {
			a.SpawnedBy = spawnedBy
		}
		addTotals(&a.Usage.Self, s)
		addTotals(&a.Usage.Tree, add)
		as, at := a.Usage.Self, a.Usage.Tree
		res, err := t.exec(updateUsage, a.SpawnedBy, as.InputTokens, as.OutputTokens, as.CostUSD, as.Runs,
			at.InputTokens, at.OutputTokens, at.CostUSD, at.Runs, key)
		if err != nil {
			t.s.cache.forget([]string{key})
			return domain.Account{}, fmt.Errorf("add usage to %q: %w", key, err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			t.s.cache.putAccount(a)
			return a, nil
		}
		// The row is not there after all: the upsert below creates it.
		t.s.cache.forget([]string{key})
	}
	a, err := scanAccount(t.queryRow(addUsage, key, spawnedBy, s.InputTokens, s.OutputTokens, s.CostUSD, s.Runs,
		add.InputTokens, add.OutputTokens, add.CostUSD, add.Runs))
	if err != nil {
		t.s.cache.forget([]string{key})
		return a, fmt.Errorf("add usage to %q: %w", key, t.noteWrite(err))
	}
	t.s.cache.putAccount(a)
	return a, nil
}

// addTotals adds u to t as the SQL of addUsage does.
func addTotals(t *domain.UsageTotals, u domain.UsageTotals) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CostUSD += u.CostUSD
	t.Runs += u.Runs
}

// RecordUsage appends one charge to the usage ledger.
func (t *tx) RecordUsage(e domain.UsageEntry) error {
	if err := t.check(); err != nil {
		return err
	}
	if _, err := t.exec(insertUsage, e.At, e.SessionKey, e.AgentID, e.Model, e.RunID, e.InputTokens, e.OutputTokens, e.CostUSD); err != nil {
		return fmt.Errorf("record usage of %q: %w", e.SessionKey, err)
	}
	return nil
}

// accountChunk bounds the keys of one IN (…) read.
const accountChunk = 256

// GetAccounts reads the accounts of keys by primary key.
func (s *Store) GetAccounts(ctx context.Context, keys []string) (map[string]domain.Account, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("get accounts: %w", domain.ErrClosed)
	}
	out := make(map[string]domain.Account, len(keys))
	for start := 0; start < len(keys); start += accountChunk {
		chunk := keys[start:min(start+accountChunk, len(keys))]
		query := `SELECT ` + accountColumns + ` FROM session_accounts WHERE session_key IN (` + placeholders(len(chunk)) + `)`
		rows, err := queryAll(ctx, s, "get accounts", query, anys(chunk), scanAccount)
		if err != nil {
			return nil, err
		}
		for _, a := range rows {
			out[a.SessionKey] = a
		}
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			out[k] = domain.Account{SessionKey: k}
		}
	}
	return out, nil
}

// usageGroupColumn maps a report's grouping to its ledger column.
var usageGroupColumn = map[string]string{"agent": "agent_id", "session": "session_key", "model": "model"}

// UsageReport sums the usage ledger grouped by q.By, largest first.
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
	if s.closed.Load() {
		return nil, fmt.Errorf("usage report: %w", domain.ErrClosed)
	}
	var b strings.Builder
	b.WriteString(`SELECT ` + col + `, sum(input_tokens), sum(output_tokens), sum(cost_usd), count(*), count(DISTINCT run_id) FROM usage_ledger`)
	args := []any{}
	if q.Since > 0 {
		b.WriteString(` WHERE at >= ?`)
		args = append(args, q.Since)
	}
	b.WriteString(` GROUP BY ` + col + ` ORDER BY sum(input_tokens) + sum(output_tokens) DESC, ` + col)
	if q.Limit > 0 {
		b.WriteString(limitParam)
		args = append(args, q.Limit)
	}
	return queryAll(ctx, s, "usage report", b.String(), args, func(r rowScanner) (domain.UsageGroup, error) {
		var g domain.UsageGroup
		err := r.Scan(&g.Key, &g.InputTokens, &g.OutputTokens, &g.CostUSD, &g.Steps, &g.Runs)
		return g, err
	})
}

// LedgerEntries returns the usage ledger in the order it was written
// (tests and `switchboard usage --entries`-style diagnostics).
func (s *Store) LedgerEntries(ctx context.Context, limit int) ([]domain.UsageEntry, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("ledger entries: %w", domain.ErrClosed)
	}
	query := `SELECT at, session_key, agent_id, model, run_id, input_tokens, output_tokens, cost_usd FROM usage_ledger ORDER BY id`
	args := []any{}
	if limit > 0 {
		query += limitParam
		args = append(args, limit)
	}
	return queryAll(ctx, s, "ledger entries", query, args, func(r rowScanner) (domain.UsageEntry, error) {
		var e domain.UsageEntry
		err := r.Scan(&e.At, &e.SessionKey, &e.AgentID, &e.Model, &e.RunID, &e.InputTokens, &e.OutputTokens, &e.CostUSD)
		return e, err
	})
}
