// Package bulk is what a store offers besides domain.Store for copying a
// whole store into another (package storecopy): reading every row in a
// stable order in batches, and writing rows exactly as they were stored
// (their seqs, entry ids, parent ids and outbox ids kept), which the
// domain.Tx methods, assigning those themselves, cannot do.
package bulk

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Message is a transcript message with the session key it belongs to.
type Message struct {
	SessionKey string
	domain.Message
}

// Counts are the rows of each kind a store holds.
type Counts struct {
	Sessions, Messages, Runs, Outbox int64
	// Accounts are usage accounts (rollups and budgets), Ledger the usage
	// ledger's charges (issue 16).
	Accounts, Ledger int64
}

// Empty reports whether no row of any kind is stored.
func (c Counts) Empty() bool { return c == Counts{} }

// Reader reads every row of a store in batches.
type Reader interface {
	Counts(ctx context.Context) (Counts, error)
	// ScanMessages returns up to limit messages after (afterKey, afterSeq),
	// in (session key, seq) order; ("", 0) starts at the beginning.
	ScanMessages(ctx context.Context, afterKey string, afterSeq int64, limit int) ([]Message, error)
	// ScanRuns returns up to limit runs in insertion order after the
	// cursor (0 starts), and the cursor of the last one.
	ScanRuns(ctx context.Context, after int64, limit int) ([]domain.Run, int64, error)
	// ScanOutbox returns up to limit outbox rows with ID > after, by ID.
	ScanOutbox(ctx context.Context, after int64, limit int) ([]domain.OutboxItem, error)
	// ScanAccounts returns up to limit usage accounts with a session key
	// after afterKey, by key.
	ScanAccounts(ctx context.Context, afterKey string, limit int) ([]domain.Account, error)
	// ScanLedger returns up to limit usage ledger entries in the order
	// they were written after the cursor (0 starts), and the cursor of the
	// last one.
	ScanLedger(ctx context.Context, after int64, limit int) ([]domain.UsageEntry, int64, error)
}

// Batch is rows to write as they are.
type Batch struct {
	Sessions []domain.Session
	Messages []Message // in (session key, seq) order
	Runs     []domain.Run
	Outbox   []domain.OutboxItem
	Accounts []domain.Account
	// Ledger is appended in order; the target assigns its own ids.
	Ledger []domain.UsageEntry
	// Legacy lists generations (session key, session id) whose entry ids
	// are not of the stores' scheme (see Generations): after writing the
	// batch's messages, the store records every id of these generations,
	// so ids it assigns later are checked against them.
	Legacy [][2]string
}

// Len is the number of rows in b.
func (b *Batch) Len() int {
	return len(b.Sessions) + len(b.Messages) + len(b.Runs) + len(b.Outbox) + len(b.Accounts) + len(b.Ledger)
}

// Writer writes batches into a store that was empty when the copy began.
type Writer interface {
	// Import writes b in one transaction, durable on return: rows keep
	// their ids, seqs and parent ids.
	Import(ctx context.Context, b Batch) error
	// FinishImport runs once after the last batch (moving id sequences
	// past the imported ids).
	FinishImport(ctx context.Context) error
}

// Store is a store that can be copied from and into.
type Store interface {
	domain.Store
	Reader
	Writer
}
