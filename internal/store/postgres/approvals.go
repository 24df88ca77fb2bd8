package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// schemaApprovals is the approvals table (the SQLite store's is the
// same): agent-to-agent calls held for an operator's decision, and the
// decisions; allow-always rows are the standing allows of their edge.
const schemaApprovals = `
CREATE TABLE approvals (
	id              TEXT COLLATE "C" PRIMARY KEY,
	tool            TEXT NOT NULL,
	rule            INTEGER NOT NULL,
	edge            TEXT COLLATE "C" NOT NULL,
	requester_key   TEXT NOT NULL,
	requester_agent TEXT NOT NULL,
	target_key      TEXT NOT NULL,
	target_agent    TEXT NOT NULL,
	summary         TEXT NOT NULL,
	call            TEXT,
	status          TEXT NOT NULL,
	decision        TEXT NOT NULL,
	resolver        TEXT NOT NULL,
	created_at      BIGINT NOT NULL,
	expires_at      BIGINT NOT NULL,
	resolved_at     BIGINT NOT NULL
);
CREATE INDEX approvals_status ON approvals (status, created_at);
CREATE INDEX approvals_edge ON approvals (edge, decision);
`

const approvalColumns = rowcodec.ApprovalColumns

func scanApproval(r pgx.Row) (domain.Approval, error) {
	var row rowcodec.ApprovalRow
	err := r.Scan(row.Dest()...)
	return row.Approval(), err
}

var _ domain.ApprovalTx = (*tx)(nil)
var _ domain.ApprovalReader = (*Store)(nil)

const selectApproval = `SELECT ` + approvalColumns + ` FROM approvals WHERE id = $1`

// GetApproval reads an approval, seeing the transaction's own writes.
func (t *tx) GetApproval(id string) (domain.Approval, error) {
	if err := t.check(); err != nil {
		return domain.Approval{}, err
	}
	a, err := scanApproval(t.queryRow(selectApproval, pgText(id)))
	if errors.Is(err, pgx.ErrNoRows) {
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
	args, err := rowcodec.ApprovalValues(a, pgText)
	if err != nil {
		return err
	}
	set := []string{}
	for i, c := range strings.Split(approvalColumns, ",") {
		if i > 0 {
			c = strings.TrimSpace(c)
			set = append(set, c+" = EXCLUDED."+c)
		}
	}
	q := `INSERT INTO approvals (` + approvalColumns + `) VALUES (` + numbered(1, len(args)) + `)
	ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ")
	if _, err := t.exec(q, args...); err != nil {
		return fmt.Errorf("put approval %q: %w", a.ID, err)
	}
	return nil
}

// GetApproval reads one approval; domain.ErrNotFound when id has none.
func (s *Store) GetApproval(ctx context.Context, id string) (domain.Approval, error) {
	if s.closed.Load() {
		return domain.Approval{}, fmt.Errorf("get approval: %w", domain.ErrClosed)
	}
	a, err := scanApproval(s.queryRow(ctx, selectApproval, pgText(id)))
	if errors.Is(err, pgx.ErrNoRows) {
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
	var a args
	if len(q.Statuses) > 0 {
		where = append(where, `status = ANY(`+a.add(strs(q.Statuses))+`::text[])`)
	}
	if q.Edge != "" {
		where = append(where, `edge = `+a.add(pgText(q.Edge)))
	}
	if q.Decision != "" {
		where = append(where, `decision = `+a.add(q.Decision))
	}
	query := `SELECT ` + approvalColumns + ` FROM approvals`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY created_at DESC, id DESC`
	if q.Limit > 0 {
		query += ` LIMIT ` + a.add(q.Limit)
	}
	if q.Offset > 0 {
		query += ` OFFSET ` + a.add(q.Offset)
	}
	return queryAll(ctx, s, "list approvals", query, a.vals, scanApproval)
}
