package audit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Log records entries on a store. It is a Recorder.
type Log struct {
	store domain.Store
	now   func() time.Time
	on    func() bool
}

// NewLog records on store, stamping entries with now, while on reports
// true (the audit.enabled setting, read at each record so a reload takes
// effect).
func NewLog(store domain.Store, now func() time.Time, on func() bool) *Log {
	if now == nil {
		now = time.Now
	}
	if on == nil {
		on = func() bool { return true }
	}
	return &Log{store: store, now: now, on: on}
}

// On reports whether entries are recorded.
func (l *Log) On() bool { return l != nil && l.on() }

// Stamp fills e's time when it has none.
func (l *Log) Stamp(e Entry) Entry {
	if e.At == 0 {
		e.At = l.now().UnixMilli()
	}
	return e
}

// Record appends e in a transaction of its own. The record outlives the
// caller's cancellation: a refused caller that hung up is still recorded.
func (l *Log) Record(ctx context.Context, e Entry) error {
	if !l.On() {
		return nil
	}
	e = l.Stamp(e)
	err := l.store.Update(context.WithoutCancel(ctx), func(tx domain.Tx) error { return AppendTx(tx, e) })
	if err != nil {
		return fmt.Errorf("audit: record %s: %w", e.Kind, err)
	}
	return nil
}

// RecordTx appends e inside tx, the transaction that makes the recorded
// action durable.
func (l *Log) RecordTx(tx domain.Tx, e Entry) error {
	if !l.On() {
		return nil
	}
	return AppendTx(tx, l.Stamp(e))
}

// ErrNoAuditLog is returned by reads of a store that keeps no audit log.
var ErrNoAuditLog = errors.New("this store keeps no audit log")

// Reader returns the store's audit side.
func (l *Log) Reader() (Store, error) {
	s, ok := l.store.(Store)
	if !ok {
		return nil, ErrNoAuditLog
	}
	return s, nil
}

// Retention is how long records are kept.
type Retention struct {
	// Days: records older than this many days are pruned (0: kept).
	Days int
	// MaxRecords: the oldest beyond this many are pruned (0: no bound).
	MaxRecords int64
}

// Prune applies r, keeping the chain verifiable from its new anchor.
func (l *Log) Prune(ctx context.Context, r Retention) (int64, error) {
	if r.Days <= 0 && r.MaxRecords <= 0 {
		return 0, nil
	}
	s, err := l.Reader()
	if err != nil {
		return 0, err
	}
	var before int64
	if r.Days > 0 {
		before = l.now().Add(-time.Duration(r.Days) * 24 * time.Hour).UnixMilli()
	}
	return s.PruneAudit(ctx, before, r.MaxRecords)
}

// VerifyStore checks the whole stored chain, page by page.
// A pruning that commits while the chain is read removes records the
// read still expects: a break at or before the anchor as it then stands
// is that, not tampering, and the chain is read again from the new anchor.
func VerifyStore(ctx context.Context, s Store, page int) (checked int64, brk *Break, err error) {
	for {
		st, err := s.AuditState(ctx)
		if err != nil {
			return 0, nil, err
		}
		checked, brk, err = VerifyPages(st, func(after int64) ([]Record, error) {
			return s.ListAudit(ctx, Query{After: after, Limit: page})
		})
		if err != nil || brk == nil {
			return checked, brk, err
		}
		now, err := s.AuditState(ctx)
		if err != nil || now.Anchor.Seq == st.Anchor.Seq || brk.Seq > now.Anchor.Seq {
			return checked, brk, err
		}
	}
}

// VerifyPages checks the chain st describes, reading it oldest first
// with next (records after a position; an empty page ends it). Records
// appended after st was read are not checked.
func VerifyPages(st State, next func(after int64) ([]Record, error)) (checked int64, brk *Break, err error) {
	v := NewVerifier(st.Anchor)
	after := st.Anchor.Seq
	for after < st.Head.Seq {
		recs, err := next(after)
		if err != nil {
			return v.Checked(), nil, err
		}
		if len(recs) == 0 {
			break
		}
		for _, r := range recs {
			if r.Seq > st.Head.Seq {
				break
			}
			if b := v.Add(r); b != nil {
				return v.Checked(), b, nil
			}
		}
		after = recs[len(recs)-1].Seq
	}
	return v.Checked(), v.End(st.Head), nil
}
