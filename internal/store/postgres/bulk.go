package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

var _ bulk.Store = (*Store)(nil)

// Counts returns how many rows of each kind the store holds.
func (s *Store) Counts(ctx context.Context) (bulk.Counts, error) {
	var c bulk.Counts
	err := s.queryRow(ctx, `SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages),
		(SELECT count(*) FROM runs), (SELECT count(*) FROM outbox),
		(SELECT count(*) FROM session_accounts), (SELECT count(*) FROM usage_ledger)`).Scan(&c.Sessions, &c.Messages, &c.Runs, &c.Outbox, &c.Accounts, &c.Ledger)
	if err != nil {
		return c, s.readErr("count rows", err)
	}
	return c, nil
}

// ScanMessages returns up to limit messages after (afterKey, afterSeq) in
// (session_key, seq) order, walking the primary key.
func (s *Store) ScanMessages(ctx context.Context, afterKey string, afterSeq int64, limit int) ([]bulk.Message, error) {
	if limit <= 0 {
		return nil, domain.Invalid("scan messages: limit must be > 0 (got %d)", limit)
	}
	return queryAll(ctx, s, "scan messages",
		`SELECT session_key, seq, id, parent_id, session_id, run_id, body FROM messages
		WHERE (session_key, seq) > ($1, $2) ORDER BY session_key, seq LIMIT $3`,
		[]any{afterKey, afterSeq, limit}, func(r pgx.Row) (bulk.Message, error) {
			var m bulk.Message
			var body []byte
			if err := r.Scan(&m.SessionKey, &m.Seq, &m.ID, &m.ParentID, &m.SessionID, &m.RunID, &body); err != nil {
				return m, err
			}
			// The body has no Seq, ID, ParentID, SessionID or RunID (json:"-").
			if err := json.Unmarshal(body, &m.Message); err != nil {
				return m, fmt.Errorf("message %q seq %d: %w", m.SessionKey, m.Seq, err)
			}
			return m, nil
		})
}

// ScanRuns returns up to limit runs in insertion order after the cursor,
// and the cursor of the last one.
func (s *Store) ScanRuns(ctx context.Context, after int64, limit int) ([]domain.Run, int64, error) {
	if limit <= 0 {
		return nil, after, domain.Invalid("scan runs: limit must be > 0 (got %d)", limit)
	}
	last := after
	runs, err := queryAll(ctx, s, "scan runs", `SELECT insert_order, `+runColumns+` FROM runs WHERE insert_order > $1 ORDER BY insert_order LIMIT $2`,
		[]any{after, limit}, func(r pgx.Row) (domain.Run, error) {
			return scanRun(orderScanner{r, &last})
		})
	return runs, last, err
}

// orderScanner scans a leading cursor column into *order, then the rest.
type orderScanner struct {
	r     pgx.Row
	order *int64
}

func (o orderScanner) Scan(dest ...any) error { return o.r.Scan(append([]any{o.order}, dest...)...) }

// ScanOutbox returns up to limit outbox rows with ID > after, by ID.
func (s *Store) ScanOutbox(ctx context.Context, after int64, limit int) ([]domain.OutboxItem, error) {
	if limit <= 0 {
		return nil, domain.Invalid("scan outbox: limit must be > 0 (got %d)", limit)
	}
	return queryAll(ctx, s, "scan outbox", `SELECT id, `+outboxColumns+` FROM outbox WHERE id > $1 ORDER BY id LIMIT $2`,
		[]any{after, limit}, scanOutbox)
}

// ScanAccounts returns up to limit usage accounts with a key after
// afterKey, by key (the "C" collation: byte order, as SQLite's).
func (s *Store) ScanAccounts(ctx context.Context, afterKey string, limit int) ([]domain.Account, error) {
	if limit <= 0 {
		return nil, domain.Invalid("scan accounts: limit must be > 0 (got %d)", limit)
	}
	return queryAll(ctx, s, "scan accounts", `SELECT `+accountColumns+` FROM session_accounts WHERE session_key > $1 ORDER BY session_key LIMIT $2`,
		[]any{afterKey, limit}, func(r pgx.Row) (domain.Account, error) { return scanAccount(r) })
}

// ScanLedger returns up to limit usage ledger entries with an id after
// after, by id, and the id of the last one.
func (s *Store) ScanLedger(ctx context.Context, after int64, limit int) ([]domain.UsageEntry, int64, error) {
	if limit <= 0 {
		return nil, after, domain.Invalid("scan ledger: limit must be > 0 (got %d)", limit)
	}
	last := after
	entries, err := queryAll(ctx, s, "scan ledger",
		`SELECT id, at, session_key, agent_id, model, run_id, input_tokens, output_tokens, cost_usd FROM usage_ledger WHERE id > $1 ORDER BY id LIMIT $2`,
		[]any{after, limit}, func(r pgx.Row) (domain.UsageEntry, error) {
			var e domain.UsageEntry
			err := r.Scan(&last, &e.At, &e.SessionKey, &e.AgentID, &e.Model, &e.RunID, &e.InputTokens, &e.OutputTokens, &e.CostUSD)
			return e, err
		})
	return entries, last, err
}

// Import writes b as it is in one transaction, with COPY: the rows stream
// to the server in PostgreSQL's binary format, no statement per row.
func (s *Store) Import(ctx context.Context, b bulk.Batch) error {
	if s.closed.Load() {
		return fmt.Errorf("import: %w", domain.ErrClosed)
	}
	return pgx.BeginFunc(ctx, s.pool, func(ptx pgx.Tx) error {
		if len(b.Sessions) > 0 {
			rows := make([][]any, len(b.Sessions))
			for i := range b.Sessions {
				rows[i] = sessionArgs(&b.Sessions[i])
			}
			if _, err := ptx.CopyFrom(ctx, pgx.Identifier{"sessions"}, columns(sessionColumns), pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("import sessions: %w", err)
			}
		}
		if len(b.Messages) > 0 {
			rows := make([][]any, len(b.Messages))
			var buf []byte
			for i := range b.Messages {
				m := &b.Messages[i]
				var err error
				if buf, err = rowcodec.AppendMessageJSON(buf[:0], &m.Message); err != nil {
					return fmt.Errorf("import message %q seq %d: %w", m.SessionKey, m.Seq, err)
				}
				rows[i] = []any{m.SessionKey, m.Seq, m.SessionID, m.ID, m.ParentID, pgText(m.Role), m.RunID, m.Timestamp, string(buf)}
			}
			cols := []string{"session_key", "seq", "session_id", "id", "parent_id", "role", "run_id", "timestamp", "body"}
			if _, err := ptx.CopyFrom(ctx, pgx.Identifier{"messages"}, cols, pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("import messages: %w", err)
			}
			// The search index, in the same transaction (search.go).
			keys, seqs, texts := make([]string, len(b.Messages)), make([]int64, len(b.Messages)), make([]string, len(b.Messages))
			for i := range b.Messages {
				m := &b.Messages[i]
				keys[i], seqs[i], texts[i] = m.SessionKey, m.Seq, pgText(s.redactor.SearchText(m.Message))
			}
			if _, err := ptx.Exec(ctx, `UPDATE messages m SET tsv = to_tsvector('simple', u.text)
				FROM unnest($1::text[], $2::bigint[], $3::text[]) AS u(key, seq, text)
				WHERE m.session_key = u.key AND m.seq = u.seq`, keys, seqs, texts); err != nil {
				return fmt.Errorf("import messages: search index: %w", err)
			}
		}
		for _, g := range b.Legacy {
			if _, err := ptx.Exec(ctx, `INSERT INTO legacy_entry_ids (session_key, session_id, id)
				SELECT session_key, session_id, id FROM messages WHERE session_key = $1 AND session_id = $2
				ON CONFLICT DO NOTHING`, g[0], g[1]); err != nil {
				return fmt.Errorf("import legacy ids of %q: %w", g[0], err)
			}
			s.hasLegacyIDs.Store(true)
		}
		if len(b.Runs) > 0 {
			rows := make([][]any, len(b.Runs))
			for i, r := range b.Runs {
				args, err := runArgs(r)
				if err != nil {
					return fmt.Errorf("import run %q: %w", r.ID, err)
				}
				rows[i] = args
			}
			if _, err := ptx.CopyFrom(ctx, pgx.Identifier{"runs"}, columns(runColumns), pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("import runs: %w", err)
			}
		}
		if len(b.Outbox) > 0 {
			rows := make([][]any, len(b.Outbox))
			for i, o := range b.Outbox {
				args, err := outboxArgs(o)
				if err != nil {
					return fmt.Errorf("import outbox %d: %w", o.ID, err)
				}
				rows[i] = append([]any{o.ID}, args...)
			}
			if _, err := ptx.CopyFrom(ctx, pgx.Identifier{"outbox"}, append([]string{"id"}, columns(outboxColumns)...), pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("import outbox: %w", err)
			}
		}
		if len(b.Accounts) > 0 {
			rows := make([][]any, len(b.Accounts))
			for i, a := range b.Accounts {
				s, t, bu := a.Usage.Self, a.Usage.Tree, a.Budget
				rows[i] = []any{a.SessionKey, a.SpawnedBy, s.InputTokens, s.OutputTokens, s.CostUSD, s.Runs,
					t.InputTokens, t.OutputTokens, t.CostUSD, t.Runs, bu.Tokens, bu.CostUSD, bu.Seconds, a.StartedAt, a.DeadlineAt}
			}
			if _, err := ptx.CopyFrom(ctx, pgx.Identifier{"session_accounts"}, columns(accountColumns), pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("import accounts: %w", err)
			}
		}
		if len(b.Ledger) > 0 {
			// No id column: the identity assigns ids in the order of the
			// rows, so the ledger keeps the source's order.
			rows := make([][]any, len(b.Ledger))
			for i, e := range b.Ledger {
				rows[i] = []any{e.At, e.SessionKey, e.AgentID, pgText(e.Model), e.RunID, e.InputTokens, e.OutputTokens, e.CostUSD}
			}
			cols := []string{"at", "session_key", "agent_id", "model", "run_id", "input_tokens", "output_tokens", "cost_usd"}
			if _, err := ptx.CopyFrom(ctx, pgx.Identifier{"usage_ledger"}, cols, pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("import usage ledger: %w", err)
			}
		}
		return nil
	})
}

// FinishImport moves the outbox id sequence past the imported ids, so the
// next EnqueueOutbox gets a new one.
func (s *Store) FinishImport(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('outbox', 'id'), GREATEST((SELECT max(id) FROM outbox), 1),
		(SELECT max(id) FROM outbox) IS NOT NULL)`)
	if err != nil {
		return fmt.Errorf("finish import: %w", err)
	}
	// Statistics now, not when autovacuum gets to it: without them the
	// planner guesses a bulk-loaded transcript has a couple of rows and
	// sorts all of it for a history tail instead of walking the index.
	if _, err := s.pool.Exec(ctx, `ANALYZE sessions, messages, runs, outbox, session_accounts, usage_ledger`); err != nil {
		return fmt.Errorf("finish import: analyze: %w", err)
	}
	return nil
}

// columns splits a column list constant into names.
func columns(list string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(list); i++ {
		if i == len(list) || list[i] == ',' || list[i] == ' ' || list[i] == '\n' || list[i] == '\t' {
			if start >= 0 {
				out = append(out, list[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}
