package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// schemaApprovals is the approvals table: agent-to-agent calls held for
// an operator's decision, and the decisions (allow-always rows are the
// standing allows of their edge). It is its own migration so it can be
// numbered beside the other migrations of the same release.
const schemaApprovals = `
CREATE TABLE IF NOT EXISTS approvals (
	id              TEXT PRIMARY KEY,
	tool            TEXT NOT NULL,
	rule            INTEGER NOT NULL,
	edge            TEXT NOT NULL,
	requester_key   TEXT NOT NULL,
	requester_agent TEXT NOT NULL,
	target_key      TEXT NOT NULL,
	target_agent    TEXT NOT NULL,
	summary         TEXT NOT NULL,
	call            TEXT,
	status          TEXT NOT NULL,
	decision        TEXT NOT NULL,
	resolver        TEXT NOT NULL,
	created_at      INTEGER NOT NULL,
	expires_at      INTEGER NOT NULL,
	resolved_at     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS approvals_status ON approvals (status, created_at);
CREATE INDEX IF NOT EXISTS approvals_edge ON approvals (edge, decision);
`

// migrateApprovals adds the approvals table.
func migrateApprovals(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, schemaApprovals)
	return err
}

const approvalColumns = rowcodec.ApprovalColumns

func scanApproval(r rowScanner) (domain.Approval, error) {
	var row rowcodec.ApprovalRow
	err := r.Scan(row.Dest()...)
	return row.Approval(), err
}

var _ domain.ApprovalTx = (*tx)(nil)
var _ domain.ApprovalReader = (*Store)(nil)

// GetApproval reads an approval, seeing the transaction's own writes.
func (t *tx) GetApproval(id string) (domain.Approval, error) {
	if err := t.check(); err != nil {
		return domain.Approval{}, err
	}
	a, err := scanApproval(t.queryRow(`SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("approval %q: %w", id, domain.ErrNotFound)
	}
	return a, err
}

// PutApproval inserts or replaces the approval with a.ID.
func (t *tx) PutApproval(a domain.Approval) error {
	if err := t.check(); err != nil {
		return err
	}
	if a.ID == "" {
		return domain.Invalid("put approval: id is required")
	}
	args, err := rowcodec.ApprovalValues(a, nil)
	if err != nil {
		return err
	}
	if _, err := t.exec(`INSERT OR REPLACE INTO approvals (`+approvalColumns+`) VALUES (`+placeholders(len(args))+`)`, args...); err != nil {
		return fmt.Errorf("put approval %q: %w", a.ID, err)
	}
	return nil
}

// GetApproval reads one approval; domain.ErrNotFound when id has none.
func (s *Store) GetApproval(ctx context.Context, id string) (domain.Approval, error) {
	if s.closed.Load() {
		return domain.Approval{}, fmt.Errorf("get approval: %w", domain.ErrClosed)
	}
	a, err := scanApproval(s.pointRowR(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("approval %q: %w", id, domain.ErrNotFound)
	}
	if err != nil {
		return a, s.readErr("get approval", err)
	}
	return a, nil
}

// ListApprovals returns the approvals matching q, newest first.
func (s *Store) ListApprovals(ctx context.Context, q domain.ApprovalQuery) ([]domain.Approval, error) {
	if q.Limit < 0 || q.Offset < 0 {
		return nil, domain.Invalid("approval query: limit and offset must be >= 0")
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("list approvals: %w", domain.ErrClosed)
	}
	var where []string
	var args []any
	if len(q.Statuses) > 0 {
		where = append(where, `status IN (`+placeholders(len(q.Statuses))+`)`)
		args = append(args, anys(q.Statuses)...)
	}
	if q.Edge != "" {
		where = append(where, `edge = ?`)
		args = append(args, q.Edge)
	}
	if q.Decision != "" {
		where = append(where, `decision = ?`)
		args = append(args, q.Decision)
	}
	query := `SELECT ` + approvalColumns + ` FROM approvals`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
	limit := q.Limit
	if limit == 0 {
		limit = -1
	}
	args = append(args, limit, q.Offset)
	return queryAll(ctx, s, "list approvals", query, args, scanApproval)
}
