package audit

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TxAppender is implemented by the domain.Tx of a store that keeps the
// audit log. AppendAudit appends e to the chain as part of the
// transaction: it commits with the transaction's other writes, or not at
// all. Appends of concurrent transactions never fork the chain (SQLite
// has one writer; PostgreSQL takes the chain's head row lock as the
// transaction's last lock, just before it commits).
type TxAppender interface {
	AppendAudit(e Entry) error
}

// State is where the stored chain starts and ends.
type State struct {
	// Anchor is the last pruned record (zero when nothing was pruned):
	// the first kept record links to it.
	Anchor Anchor `json:"anchor"`
	// Head is the last record appended (zero for an empty chain).
	Head Anchor `json:"head"`
}

// Query selects records. Without Desc they come oldest first from After;
// with Desc newest first from Before (0: the newest).
type Query struct {
	After  int64
	Before int64
	Desc   bool
	// Kinds keeps records of these kinds (none: every kind).
	Kinds []Kind
	Limit int
}

// Store is the audit log's side of a store.
type Store interface {
	AuditState(ctx context.Context) (State, error)
	ListAudit(ctx context.Context, q Query) ([]Record, error)
	// PruneAudit removes the records with At < olderThan (0: none by age)
	// and the oldest beyond keepNewest (0: none by count), moving the
	// anchor to the last one removed, in one transaction. It returns how
	// many it removed.
	PruneAudit(ctx context.Context, olderThan int64, keepNewest int64) (int64, error)
}

// AppendTx appends e to the chain inside tx; a store without an audit
// log records nothing.
func AppendTx(tx domain.Tx, e Entry) error {
	if a, ok := tx.(TxAppender); ok {
		return a.AppendAudit(e.Clip())
	}
	return nil
}

// PruneCut is the last record a prune keeping keepNewest records (0: no
// bound) removes, by count alone.
func PruneCut(st State, keepNewest int64) int64 {
	if keepNewest <= 0 {
		return 0
	}
	return max(0, st.Head.Seq-keepNewest)
}
