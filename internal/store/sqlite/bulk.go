package sqlite

import (
	"context"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
)

var _ bulk.Store = (*Store)(nil)

// Counts returns how many rows of each kind the store holds.
func (s *Store) Counts(ctx context.Context) (bulk.Counts, error) {
	var c bulk.Counts
	err := s.queryRowR(ctx, `SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages),
		(SELECT count(*) FROM runs), (SELECT count(*) FROM outbox),
		(SELECT count(*) FROM session_accounts), (SELECT count(*) FROM usage_ledger)`).Scan(&c.Sessions, &c.Messages, &c.Runs, &c.Outbox, &c.Accounts, &c.Ledger)
	if err != nil {
		return c, s.readErr("count rows", err)
	}
	return c, nil
}

// ScanMessages returns up to limit messages after (afterKey, afterSeq) in
// (session_key, seq) order: the generations in key order, and for each
// key its generations' rows merged by seq from the (gen, seq) index.
func (s *Store) ScanMessages(ctx context.Context, afterKey string, afterSeq int64, limit int) ([]bulk.Message, error) {
	if limit <= 0 {
		return nil, domain.Invalid("scan messages: limit must be > 0 (got %d)", limit)
	}
	return queryAll(ctx, s, "scan messages",
		`SELECT g.session_key, m.seq, m.id, m.parent_id, g.session_id, m.run_id, m.body
		FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen
		WHERE g.session_key >= ?1 AND (g.session_key > ?1 OR m.seq > ?2) ORDER BY g.session_key, m.seq LIMIT ?3`,
		[]any{afterKey, afterSeq, limit}, s.scanBulkMessage)
}

func (s *Store) scanBulkMessage(r rowScanner) (bulk.Message, error) {
	var m bulk.Message
	var seq int64
	var id, parent, sid, runID string
	var body []byte
	if err := r.Scan(&m.SessionKey, &seq, textCol{&id}, textCol{&parent}, &sid, textCol{&runID}, &body); err != nil {
		return m, err
	}
	// Decoded first: decodeBody replaces the whole message.
	if _, err := decodeBody(s.codec, nil, body, &m.Message); err != nil {
		return m, fmt.Errorf("message %q seq %d: %w", m.SessionKey, seq, err)
	}
	m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID = seq, id, parent, sid, runID
	return m, nil
}

// ScanRuns returns up to limit runs in insertion (rowid) order after the
// rowid after, and the rowid of the last one.
func (s *Store) ScanRuns(ctx context.Context, after int64, limit int) ([]domain.Run, int64, error) {
	if limit <= 0 {
		return nil, after, domain.Invalid("scan runs: limit must be > 0 (got %d)", limit)
	}
	last := after
	runs, err := queryAll(ctx, s, "scan runs", `SELECT rowid, `+runColumns+` FROM runs WHERE rowid > ? ORDER BY rowid LIMIT ?`,
		[]any{after, limit}, func(r rowScanner) (domain.Run, error) {
			return scanRun(rowidScanner{r, &last})
		})
	return runs, last, err
}

// rowidScanner scans a leading rowid column into *rowid, then the rest.
type rowidScanner struct {
	r     rowScanner
	rowid *int64
}

func (r rowidScanner) Scan(dest ...any) error { return r.r.Scan(append([]any{r.rowid}, dest...)...) }

// ScanOutbox returns up to limit outbox rows with ID > after, by ID.
func (s *Store) ScanOutbox(ctx context.Context, after int64, limit int) ([]domain.OutboxItem, error) {
	if limit <= 0 {
		return nil, domain.Invalid("scan outbox: limit must be > 0 (got %d)", limit)
	}
	return queryAll(ctx, s, "scan outbox", `SELECT id, `+outboxColumns+` FROM outbox WHERE id > ? ORDER BY id LIMIT ?`,
		[]any{after, limit}, scanOutbox)
}

// ScanAccounts returns up to limit usage accounts with a key after
// afterKey, by key.
func (s *Store) ScanAccounts(ctx context.Context, afterKey string, limit int) ([]domain.Account, error) {
	if limit <= 0 {
		return nil, domain.Invalid("scan accounts: limit must be > 0 (got %d)", limit)
	}
	return queryAll(ctx, s, "scan accounts", `SELECT `+accountColumns+` FROM session_accounts WHERE session_key > ? ORDER BY session_key LIMIT ?`,
		[]any{afterKey, limit}, scanAccount)
}

// ScanLedger returns up to limit usage ledger entries with an id after
// after, by id, and the id of the last one.
func (s *Store) ScanLedger(ctx context.Context, after int64, limit int) ([]domain.UsageEntry, int64, error) {
	if limit <= 0 {
		return nil, after, domain.Invalid("scan ledger: limit must be > 0 (got %d)", limit)
	}
	last := after
	entries, err := queryAll(ctx, s, "scan ledger",
		`SELECT id, at, session_key, agent_id, model, run_id, input_tokens, output_tokens, cost_usd FROM usage_ledger WHERE id > ? ORDER BY id LIMIT ?`,
		[]any{after, limit}, func(r rowScanner) (domain.UsageEntry, error) {
			var e domain.UsageEntry
			err := r.Scan(&last, &e.At, &e.SessionKey, &e.AgentID, &e.Model, &e.RunID, &e.InputTokens, &e.OutputTokens, &e.CostUSD)
			return e, err
		})
	return entries, last, err
}

// Import writes b as it is, in one transaction through the writer.
func (s *Store) Import(ctx context.Context, b bulk.Batch) error {
	return s.Update(ctx, func(dtx domain.Tx) error {
		t := dtx.(*tx)
		for i := range b.Sessions {
			args := sessionArgs(&b.Sessions[i])
			if _, err := t.exec(`INSERT INTO sessions (`+sessionColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?)`, args...); err != nil {
				return fmt.Errorf("import session %q: %w", b.Sessions[i].Key, err)
			}
		}
		msgs := b.Messages
		for len(msgs) > 0 {
			n := 1
			for n < len(msgs) && msgs[n].SessionKey == msgs[0].SessionKey {
				n++
			}
			key := msgs[0].SessionKey
			run := make([]domain.Message, n)
			for i := range run {
				run[i] = msgs[i].Message
			}
			t.touch(key)
			if _, err := t.insertMessages(key, run); err != nil {
				return fmt.Errorf("import messages of %q: %w", key, err)
			}
			t.s.cache.forget([]string{key})
			msgs = msgs[n:]
		}
		for _, g := range b.Legacy {
			if _, err := t.exec(`INSERT OR IGNORE INTO legacy_entry_ids (session_key, session_id, id)
				SELECT g.session_key, g.session_id, `+unpackedTextSQL("m.id")+` FROM message_gens AS g JOIN messages AS m ON m.gen = g.gen
				WHERE g.session_key = ? AND g.session_id = ?`, g[0], g[1]); err != nil {
				return fmt.Errorf("import legacy ids of %q: %w", g[0], err)
			}
			t.s.hasLegacyIDs = true
		}
		for _, r := range b.Runs {
			args, err := runArgs(r)
			if err != nil {
				return fmt.Errorf("import run %q: %w", r.ID, err)
			}
			if _, err := t.exec(`INSERT INTO runs (`+runColumns+`) VALUES (`+placeholders(len(args))+`)`, args...); err != nil {
				return fmt.Errorf("import run %q: %w", r.ID, err)
			}
		}
		for _, o := range b.Outbox {
			args, err := outboxArgs(o)
			if err != nil {
				return fmt.Errorf("import outbox %d: %w", o.ID, err)
			}
			if _, err := t.exec(`INSERT INTO outbox (id, `+outboxColumns+`) VALUES (?, `+placeholders(len(args))+`)`, append([]any{o.ID}, args...)...); err != nil {
				return fmt.Errorf("import outbox %d: %w", o.ID, err)
			}
		}
		for _, a := range b.Accounts {
			if err := t.PutAccount(a); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		}
		for _, e := range b.Ledger {
			if err := t.RecordUsage(e); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		}
		return nil
	})
}

// FinishImport has nothing to do: AUTOINCREMENT already moved past the
// imported outbox ids.
func (s *Store) FinishImport(context.Context) error { return nil }
