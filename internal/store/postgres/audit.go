package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// schemaV4 is the audit log (internal/audit): the chain's records, and
// one row holding its head and its anchor. Appends lock that row, so the
// transactions of every replica append one after another.
const schemaV4 = `
CREATE TABLE IF NOT EXISTS audit_log (
	seq          BIGINT PRIMARY KEY,
	at           BIGINT NOT NULL,
	kind         TEXT NOT NULL,
	actor        TEXT NOT NULL,
	surface      TEXT NOT NULL,
	op           TEXT NOT NULL,
	session_key  TEXT COLLATE "C" NOT NULL,
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
	head_seq    BIGINT NOT NULL,
	head_hash   TEXT NOT NULL,
	anchor_seq  BIGINT NOT NULL,
	anchor_hash TEXT NOT NULL
);
INSERT INTO audit_head VALUES (1, 0, '', 0, '') ON CONFLICT (id) DO NOTHING;
`

const (
	auditColumns = rowcodec.AuditColumns
	auditHead    = `SELECT ` + rowcodec.AuditHeadColumns + ` FROM audit_head WHERE id = 1`
)

var insertAudit = `INSERT INTO audit_log (` + auditColumns + `) VALUES (` + numbered(1, rowcodec.AuditColumnCount) + `)`

var (
	_ audit.TxAppender = (*tx)(nil)
	_ audit.Store      = (*Store)(nil)
)

// AppendAudit queues e; the commit appends it (flushAudit).
func (t *tx) AppendAudit(e audit.Entry) error {
	if err := t.check(); err != nil {
		return err
	}
	t.audit = append(t.audit, e)
	return nil
}

// flushAudit appends the fn's entries after the chain's head, locking the
// head row: the transaction's last lock, taken just before its commit, so
// it is held for one round trip and never waited for while holding a
// lock another appender needs (no lock-order cycle). The inserts and the
// head's move go out with the COMMIT.
func (t *tx) flushAudit() error {
	if len(t.audit) == 0 {
		return nil
	}
	var st audit.State
	if err := t.queryRow(auditHead + ` FOR UPDATE`).Scan(rowcodec.AuditHeadDest(&st)...); err != nil {
		return fmt.Errorf("audit: lock head: %w", err)
	}
	head := st.Head
	for _, e := range t.audit {
		r := audit.Next(head, e)
		t.deferWrite(fmt.Sprintf("audit: append %s", e.Kind), insertAudit, rowcodec.AuditValues(r)...)
		head = audit.Anchor{Seq: r.Seq, Hash: r.Hash}
	}
	t.deferWrite("audit: move head", `UPDATE audit_head SET head_seq = $1, head_hash = $2 WHERE id = 1`, head.Seq, head.Hash)
	return nil
}

// AuditState reads the chain's anchor and head.
func (s *Store) AuditState(ctx context.Context) (audit.State, error) {
	var st audit.State
	if err := s.queryRow(ctx, auditHead).Scan(rowcodec.AuditHeadDest(&st)...); err != nil {
		return audit.State{}, s.readErr("audit state", err)
	}
	return st, nil
}

// ListAudit reads records as q selects them.
func (s *Store) ListAudit(ctx context.Context, q audit.Query) ([]audit.Record, error) {
	if q.Limit <= 0 {
		return nil, domain.Invalid("audit query: limit must be > 0 (got %d)", q.Limit)
	}
	query, args := audit.SelectSQL(auditColumns, q, func(i int) string { return "$" + strconv.Itoa(i) })
	args = append(args, q.Limit)
	rows, err := s.pool.Query(ctx, query+` LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, s.readErr("list audit", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (audit.Record, error) {
		var r rowcodec.AuditRow
		err := row.Scan(r.Dest()...)
		return r.Record(), err
	})
	if err != nil {
		return nil, s.readErr("list audit", err)
	}
	return out, nil
}

// PruneAudit removes the oldest records as retention asks, moving the
// anchor to the last one removed, under the head's lock.
func (s *Store) PruneAudit(ctx context.Context, olderThan, keepNewest int64) (int64, error) {
	var removed int64
	err := s.Update(ctx, func(dtx domain.Tx) error {
		t := dtx.(*tx)
		removed = 0
		var st audit.State
		if err := t.queryRow(auditHead + ` FOR UPDATE`).Scan(rowcodec.AuditHeadDest(&st)...); err != nil {
			return fmt.Errorf("audit: lock head: %w", err)
		}
		cut := audit.PruneCut(st, keepNewest)
		if olderThan > 0 {
			var byAge int64
			if err := t.queryRow(`SELECT coalesce(max(seq), 0) FROM audit_log WHERE at < $1`, olderThan).Scan(&byAge); err != nil {
				return fmt.Errorf("audit: prune: %w", err)
			}
			cut = max(cut, byAge)
		}
		if cut <= st.Anchor.Seq {
			return nil
		}
		var hash string
		if err := t.queryRow(`SELECT hash FROM audit_log WHERE seq = $1`, cut).Scan(&hash); err != nil {
			return fmt.Errorf("audit: prune: record %d, the new anchor, cannot be read (run switchboard audit verify): %w", cut, err)
		}
		tag, err := t.exec(`DELETE FROM audit_log WHERE seq <= $1`, cut)
		if err != nil {
			return fmt.Errorf("audit: prune: %w", err)
		}
		removed = tag.RowsAffected()
		if _, err := t.exec(`UPDATE audit_head SET anchor_seq = $1, anchor_hash = $2 WHERE id = 1`, cut, hash); err != nil {
			return fmt.Errorf("audit: prune: %w", err)
		}
		return nil
	})
	return removed, err
}
