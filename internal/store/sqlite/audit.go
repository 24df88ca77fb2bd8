package sqlite

import (
	"context"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// schemaV11 is the audit log (internal/audit): the chain's records, and
// one row holding its head (the last record appended) and its anchor (the
// last record pruned). Records are appended by the single writer, each
// reading the head its predecessor wrote in the same batch.
const schemaV11 = `
CREATE TABLE IF NOT EXISTS audit_log (
	seq          INTEGER PRIMARY KEY,
	at           INTEGER NOT NULL,
	kind         TEXT NOT NULL,
	actor        TEXT NOT NULL,
	surface      TEXT NOT NULL,
	op           TEXT NOT NULL,
	session_key  TEXT NOT NULL,
	target       TEXT NOT NULL,
	run_id       TEXT NOT NULL,
	agent_id     TEXT NOT NULL,
	tool_call_id TEXT NOT NULL,
	outcome      TEXT NOT NULL,
	detail       TEXT NOT NULL,
	prev         TEXT NOT NULL,
	hash         TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_head (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	head_seq    INTEGER NOT NULL,
	head_hash   TEXT NOT NULL,
	anchor_seq  INTEGER NOT NULL,
	anchor_hash TEXT NOT NULL
);
INSERT OR IGNORE INTO audit_head VALUES (1, 0, '', 0, '');
`

const (
	auditColumns    = rowcodec.AuditColumns
	selectAuditHead = `SELECT ` + rowcodec.AuditHeadColumns + ` FROM audit_head WHERE id = 1`
	updateAuditHead = `UPDATE audit_head SET head_seq = ?, head_hash = ? WHERE id = 1`
)

var insertAudit = `INSERT INTO audit_log (` + auditColumns + `) VALUES (` + placeholders(rowcodec.AuditColumnCount) + `)`

var (
	_ audit.TxAppender = (*tx)(nil)
	_ audit.Store      = (*Store)(nil)
)

// AppendAudit appends e to the chain after the head this transaction
// sees (the writer is the only one, so no other append comes between).
func (t *tx) AppendAudit(e audit.Entry) error {
	if err := t.check(); err != nil {
		return err
	}
	var st audit.State
	if err := t.queryRow(selectAuditHead).Scan(rowcodec.AuditHeadDest(&st)...); err != nil {
		return fmt.Errorf("audit: read head: %w", t.noteWrite(err))
	}
	r := audit.Next(st.Head, e)
	if _, err := t.exec(insertAudit, rowcodec.AuditValues(r)...); err != nil {
		return fmt.Errorf("audit: append %s: %w", e.Kind, err)
	}
	if _, err := t.exec(updateAuditHead, r.Seq, r.Hash); err != nil {
		return fmt.Errorf("audit: move head: %w", err)
	}
	return nil
}

func scanAudit(row rowScanner) (audit.Record, error) {
	var r rowcodec.AuditRow
	err := row.Scan(r.Dest()...)
	return r.Record(), err
}

// AuditState reads the chain's anchor and head.
func (s *Store) AuditState(ctx context.Context) (audit.State, error) {
	if s.closed.Load() {
		return audit.State{}, fmt.Errorf("audit state: %w", domain.ErrClosed)
	}
	var st audit.State
	if err := s.pointRowR(ctx, selectAuditHead).Scan(rowcodec.AuditHeadDest(&st)...); err != nil {
		return audit.State{}, s.readErr("audit state", err)
	}
	return st, nil
}

// ListAudit reads records as q selects them.
func (s *Store) ListAudit(ctx context.Context, q audit.Query) ([]audit.Record, error) {
	if q.Limit <= 0 {
		return nil, domain.Invalid("audit query: limit must be > 0 (got %d)", q.Limit)
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("list audit: %w", domain.ErrClosed)
	}
	query, args := audit.SelectSQL(auditColumns, q, func(int) string { return "?" })
	return queryAll(ctx, s, "list audit", query+limitParam, append(args, q.Limit), scanAudit)
}

// PruneAudit removes the oldest records as retention asks, moving the
// anchor to the last one removed.
func (s *Store) PruneAudit(ctx context.Context, olderThan, keepNewest int64) (int64, error) {
	var removed int64
	err := s.Update(ctx, func(dtx domain.Tx) error {
		t := dtx.(*tx)
		removed = 0
		var st audit.State
		if err := t.queryRow(selectAuditHead).Scan(rowcodec.AuditHeadDest(&st)...); err != nil {
			return fmt.Errorf("audit: read head: %w", err)
		}
		cut := audit.PruneCut(st, keepNewest)
		if olderThan > 0 {
			var byAge int64
			if err := t.queryRow(`SELECT coalesce(max(seq), 0) FROM audit_log WHERE at < ?`, olderThan).Scan(&byAge); err != nil {
				return fmt.Errorf("audit: prune: %w", err)
			}
			cut = max(cut, byAge)
		}
		if cut <= st.Anchor.Seq {
			return nil
		}
		var hash string
		if err := t.queryRow(`SELECT hash FROM audit_log WHERE seq = ?`, cut).Scan(&hash); err != nil {
			return fmt.Errorf("audit: prune: record %d, the new anchor, cannot be read (run switchboard audit verify): %w", cut, err)
		}
		res, err := t.exec(`DELETE FROM audit_log WHERE seq <= ?`, cut)
		if err != nil {
			return fmt.Errorf("audit: prune: %w", err)
		}
		removed, _ = res.RowsAffected()
		if _, err := t.exec(`UPDATE audit_head SET anchor_seq = ?, anchor_hash = ? WHERE id = 1`, cut, hash); err != nil {
			return fmt.Errorf("audit: prune: %w", err)
		}
		return nil
	})
	return removed, err
}
