// Package storecopy copies a whole switchboard store into another, empty
// one — SQLite to PostgreSQL and back — for `switchboard migrate`. It
// reads the source through domain.StoreReader and the bulk.Reader scans,
// and writes through bulk.Writer, which keeps every id, seq and parent id
// as it was (PostgreSQL's writer streams rows with COPY). Running a copy
// again into a target that already holds exactly this copy does nothing
// and says so; any other non-empty target is refused.
package storecopy

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// DefaultBatch is the number of rows one batch (one target transaction)
// holds.
const DefaultBatch = 2000

// MaxBatch bounds Options.Batch.
const MaxBatch = 100000

// ErrNotEmpty is Copy's error for a target that holds rows that are not
// exactly this copy.
var ErrNotEmpty = errors.New("the target store is not empty")

// Source is a store to copy from.
type Source interface {
	domain.StoreReader
	bulk.Reader
}

// Options tune Copy.
type Options struct {
	// Batch is the rows per batch (default DefaultBatch, 1..MaxBatch).
	Batch int
	// Progress, when set, is called after each batch with the rows copied
	// so far and the total.
	Progress func(done, total int64)
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Summary is what a copy did.
type Summary struct {
	bulk.Counts
	// Bytes is the size of the copied rows in their canonical encoding
	// (message bodies as transcript JSON, session rows as stored).
	Bytes    int64
	Duration time.Duration
	// AlreadyCopied: the target already held exactly this copy; nothing
	// was written.
	AlreadyCopied bool
}

// Rows is the number of rows of every kind.
func (s Summary) Rows() int64 { return rows(s.Counts) }

func rows(c bulk.Counts) int64 {
	return c.Sessions + c.Messages + c.Runs + c.Outbox + c.Accounts + c.Ledger
}

// Copy copies every session, transcript message, run, outbox row, usage
// account and usage ledger entry of src into dst, which must be empty (or hold exactly this copy already).
// Each batch is one transaction of dst; a copy that fails midway leaves
// dst partly written, and a new Copy refuses it until it is emptied.
func Copy(ctx context.Context, src Source, dst bulk.Store, opts Options) (Summary, error) {
	if opts.Batch == 0 {
		opts.Batch = DefaultBatch
	}
	if opts.Batch < 1 || opts.Batch > MaxBatch {
		return Summary{}, domain.Invalid("batch must be 1..%d (got %d)", MaxBatch, opts.Batch)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	start := opts.Now()
	total, err := src.Counts(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("count source rows: %w", err)
	}
	have, err := dst.Counts(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("count target rows: %w", err)
	}
	if !have.Empty() {
		return alreadyCopied(ctx, src, dst, total, have, opts, start)
	}
	c := &copier{ctx: ctx, src: src, dst: dst, opts: opts, total: rows(total),
		gens: bulk.Generations{EntryID: rowcodec.EntryID, EntrySalt: rowcodec.EntrySalt}}
	if err := c.run(); err != nil {
		return c.sum, err
	}
	if err := dst.FinishImport(ctx); err != nil {
		return c.sum, err
	}
	c.sum.Duration = opts.Now().Sub(start)
	return c.sum, nil
}

// alreadyCopied compares a non-empty target with the source: equal is a
// finished copy (nothing to do), anything else is ErrNotEmpty.
func alreadyCopied(ctx context.Context, src Source, dst bulk.Store, total, have bulk.Counts, opts Options, start time.Time) (Summary, error) {
	notEmpty := fmt.Errorf("%w: it holds %d sessions, %d messages, %d runs, %d outbox rows, %d usage accounts and %d usage ledger entries; copy into an empty database (or file)",
		ErrNotEmpty, have.Sessions, have.Messages, have.Runs, have.Outbox, have.Accounts, have.Ledger)
	if have != total {
		return Summary{}, notEmpty
	}
	a, err := Digest(ctx, src, opts.Batch)
	if err != nil {
		return Summary{}, fmt.Errorf("read source: %w", err)
	}
	b, err := Digest(ctx, dst, opts.Batch)
	if err != nil {
		return Summary{}, fmt.Errorf("read target: %w", err)
	}
	if a != b {
		return Summary{}, fmt.Errorf("%w (it has as many rows as the source, but different ones)", notEmpty)
	}
	return Summary{Counts: have, Bytes: a.Bytes, Duration: opts.Now().Sub(start), AlreadyCopied: true}, nil
}

type copier struct {
	ctx   context.Context
	src   Source
	dst   bulk.Store
	opts  Options
	total int64
	sum   Summary
	gens  bulk.Generations
}

func (c *copier) progress() {
	if c.opts.Progress != nil {
		c.opts.Progress(c.sum.Rows(), c.total)
	}
}

func (c *copier) write(b bulk.Batch) error {
	if err := c.dst.Import(c.ctx, b); err != nil {
		return err
	}
	c.sum.Sessions += int64(len(b.Sessions))
	c.sum.Messages += int64(len(b.Messages))
	c.sum.Runs += int64(len(b.Runs))
	c.sum.Outbox += int64(len(b.Outbox))
	c.sum.Accounts += int64(len(b.Accounts))
	c.sum.Ledger += int64(len(b.Ledger))
	c.progress()
	return nil
}

func (c *copier) run() error {
	c.progress()
	enc := newEncoder()
	// Sessions, in list order, with the list cursor.
	q := domain.SessionQuery{IncludeArchived: true, Limit: c.opts.Batch}
	for {
		rows, err := c.src.ListSessions(c.ctx, q)
		if err != nil {
			return fmt.Errorf("read sessions: %w", err)
		}
		if len(rows) == 0 {
			break
		}
		for i := range rows {
			c.sum.Bytes += enc.session(&rows[i])
		}
		if err := c.write(bulk.Batch{Sessions: rows}); err != nil {
			return fmt.Errorf("write sessions: %w", err)
		}
		last := rows[len(rows)-1]
		q.AfterUpdatedAt, q.AfterKey = last.UpdatedAt, last.Key
	}
	// Messages, in (key, seq) order.
	var afterKey string
	var afterSeq int64
	for {
		msgs, err := c.src.ScanMessages(c.ctx, afterKey, afterSeq, c.opts.Batch)
		if err != nil {
			return fmt.Errorf("read messages: %w", err)
		}
		if len(msgs) == 0 {
			break
		}
		b := bulk.Batch{Messages: msgs}
		inBatch := map[[2]string]bool{}
		for i := range msgs {
			n, err := enc.message(&msgs[i])
			if err != nil {
				return err
			}
			c.sum.Bytes += n
			g := [2]string{msgs[i].SessionKey, msgs[i].SessionID}
			if legacy, _ := c.gens.Check(&msgs[i]); legacy && !inBatch[g] {
				inBatch[g] = true
				b.Legacy = append(b.Legacy, g)
			}
		}
		if err := c.write(b); err != nil {
			return fmt.Errorf("write messages: %w", err)
		}
		last := msgs[len(msgs)-1]
		afterKey, afterSeq = last.SessionKey, last.Seq
	}
	// Runs, in insertion order (it breaks ties of equal creation times).
	var after int64
	for {
		runs, next, err := c.src.ScanRuns(c.ctx, after, c.opts.Batch)
		if err != nil {
			return fmt.Errorf("read runs: %w", err)
		}
		if len(runs) == 0 {
			break
		}
		for i := range runs {
			n, err := enc.json(runs[i])
			if err != nil {
				return err
			}
			c.sum.Bytes += n
		}
		if err := c.write(bulk.Batch{Runs: runs}); err != nil {
			return fmt.Errorf("write runs: %w", err)
		}
		after = next
	}
	// The outbox, by id (ids are kept).
	var afterID int64
	for {
		items, err := c.src.ScanOutbox(c.ctx, afterID, c.opts.Batch)
		if err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		if len(items) == 0 {
			break
		}
		for i := range items {
			n, err := enc.json(items[i])
			if err != nil {
				return err
			}
			c.sum.Bytes += n
		}
		if err := c.write(bulk.Batch{Outbox: items}); err != nil {
			return fmt.Errorf("write outbox: %w", err)
		}
		afterID = items[len(items)-1].ID
	}
	// Usage accounts (rollups and budgets), by session key.
	var afterAcct string
	for {
		accts, err := c.src.ScanAccounts(c.ctx, afterAcct, c.opts.Batch)
		if err != nil {
			return fmt.Errorf("read usage accounts: %w", err)
		}
		if len(accts) == 0 {
			break
		}
		for i := range accts {
			n, err := enc.json(accts[i])
			if err != nil {
				return err
			}
			c.sum.Bytes += n
		}
		if err := c.write(bulk.Batch{Accounts: accts}); err != nil {
			return fmt.Errorf("write usage accounts: %w", err)
		}
		afterAcct = accts[len(accts)-1].SessionKey
	}
	// The usage ledger, in the order it was written.
	var afterEntry int64
	for {
		entries, next, err := c.src.ScanLedger(c.ctx, afterEntry, c.opts.Batch)
		if err != nil {
			return fmt.Errorf("read usage ledger: %w", err)
		}
		if len(entries) == 0 {
			break
		}
		for i := range entries {
			n, err := enc.json(entries[i])
			if err != nil {
				return err
			}
			c.sum.Bytes += n
		}
		if err := c.write(bulk.Batch{Ledger: entries}); err != nil {
			return fmt.Errorf("write usage ledger: %w", err)
		}
		afterEntry = next
	}
	return nil
}

// Fingerprint is a digest of a store's whole contents.
type Fingerprint struct {
	bulk.Counts
	Bytes int64
	Sum   [sha256.Size]byte
}

// Digest reads every row of st in the order Copy writes them and returns
// their counts, canonical size and SHA-256: two stores with equal digests
// hold the same rows.
func Digest(ctx context.Context, st Source, batch int) (Fingerprint, error) {
	enc := newEncoder()
	var f Fingerprint
	q := domain.SessionQuery{IncludeArchived: true, Limit: batch}
	for {
		rows, err := st.ListSessions(ctx, q)
		if err != nil || len(rows) == 0 {
			if err != nil {
				return f, err
			}
			break
		}
		for i := range rows {
			f.Bytes += enc.session(&rows[i])
		}
		f.Sessions += int64(len(rows))
		last := rows[len(rows)-1]
		q.AfterUpdatedAt, q.AfterKey = last.UpdatedAt, last.Key
	}
	var afterKey string
	var afterSeq int64
	for {
		msgs, err := st.ScanMessages(ctx, afterKey, afterSeq, batch)
		if err != nil || len(msgs) == 0 {
			if err != nil {
				return f, err
			}
			break
		}
		for i := range msgs {
			n, err := enc.message(&msgs[i])
			if err != nil {
				return f, err
			}
			f.Bytes += n
		}
		f.Messages += int64(len(msgs))
		afterKey, afterSeq = msgs[len(msgs)-1].SessionKey, msgs[len(msgs)-1].Seq
	}
	var after int64
	for {
		runs, next, err := st.ScanRuns(ctx, after, batch)
		if err != nil || len(runs) == 0 {
			if err != nil {
				return f, err
			}
			break
		}
		for i := range runs {
			n, err := enc.json(runs[i])
			if err != nil {
				return f, err
			}
			f.Bytes += n
		}
		f.Runs += int64(len(runs))
		after = next
	}
	var afterID int64
	for {
		items, err := st.ScanOutbox(ctx, afterID, batch)
		if err != nil || len(items) == 0 {
			if err != nil {
				return f, err
			}
			break
		}
		for i := range items {
			n, err := enc.json(items[i])
			if err != nil {
				return f, err
			}
			f.Bytes += n
		}
		f.Outbox += int64(len(items))
		afterID = items[len(items)-1].ID
	}
	var afterAcct string
	for {
		accts, err := st.ScanAccounts(ctx, afterAcct, batch)
		if err != nil || len(accts) == 0 {
			if err != nil {
				return f, err
			}
			break
		}
		for i := range accts {
			n, err := enc.json(accts[i])
			if err != nil {
				return f, err
			}
			f.Bytes += n
		}
		f.Accounts += int64(len(accts))
		afterAcct = accts[len(accts)-1].SessionKey
	}
	var afterEntry int64
	for {
		entries, next, err := st.ScanLedger(ctx, afterEntry, batch)
		if err != nil || len(entries) == 0 {
			if err != nil {
				return f, err
			}
			break
		}
		for i := range entries {
			n, err := enc.json(entries[i])
			if err != nil {
				return f, err
			}
			f.Bytes += n
		}
		f.Ledger += int64(len(entries))
		afterEntry = next
	}
	copy(f.Sum[:], enc.h.Sum(nil))
	return f, nil
}

// encoder feeds rows in a canonical encoding to a hash and counts bytes.
type encoder struct {
	h   hash.Hash
	buf []byte
}

func newEncoder() *encoder { return &encoder{h: sha256.New()} }

// frame hashes one row with its length, so rows cannot run together.
func (e *encoder) frame(b []byte) int64 {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	e.h.Write(n[:])
	e.h.Write(b)
	return int64(len(b))
}

func (e *encoder) session(s *domain.Session) int64 {
	e.buf = rowcodec.EncodeSessionRow(e.buf[:0], s)
	return e.frame(e.buf)
}

func (e *encoder) message(m *bulk.Message) (int64, error) {
	var err error
	e.buf = append(e.buf[:0], m.SessionKey...)
	e.buf = append(e.buf, 0)
	e.buf = binary.AppendVarint(e.buf, m.Seq)
	for _, s := range []string{m.ID, m.ParentID, m.SessionID, m.RunID} {
		e.buf = append(e.buf, s...)
		e.buf = append(e.buf, 0)
	}
	if e.buf, err = rowcodec.AppendMessageJSON(e.buf, &m.Message); err != nil {
		return 0, fmt.Errorf("message %q seq %d: %w", m.SessionKey, m.Seq, err)
	}
	return e.frame(e.buf), nil
}

func (e *encoder) json(v any) (int64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	return e.frame(b), nil
}
