package openclawimport

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// groupWriter gathers planned sessions into Updates of at most BatchSize
// sessions and about batchMessages messages.
type groupWriter struct {
	im    *importer
	group []*plan
	msgs  int
	// stage is the staged transaction while the source's checks run;
	// staged says one was started (only the first groups are staged).
	stage  *stage
	staged bool
}

// add records p in the summary and queues it for writing. It returns how
// many plans it is through with (p itself when p writes nothing, plus a
// group it had to commit to make room).
func (w *groupWriter) add(ctx context.Context, p *plan) (released int, err error) {
	im := w.im
	if p.err != nil {
		return 0, p.err
	}
	for _, s := range p.warnings {
		im.sum.warn(s)
	}
	if p.skip == "" {
		for _, s := range p.transcriptWarnings {
			im.sum.warn(s)
		}
	}
	if p.skip == reasonUnchanged {
		im.largest(p)
	}
	if p.skip != "" {
		im.sum.skip(p.skip, "")
		return 1, nil
	}
	if p.row == nil && len(p.msgs) == 0 {
		return 1, nil
	}
	if len(w.group) > 0 && (len(w.group) >= im.opts.BatchSize || w.msgs+len(p.msgs) > batchMessages) {
		if released, err = w.flush(ctx); err != nil {
			return 0, err
		}
	}
	w.group = append(w.group, p)
	w.msgs += len(p.msgs)
	return released, nil
}

// flush commits the queued plans, or stages them while the source's
// checks run, and returns how many there were.
func (w *groupWriter) flush(ctx context.Context) (int, error) {
	n := len(w.group)
	if n == 0 {
		return 0, nil
	}
	if w.stageable() {
		if w.stage == nil {
			w.stage, w.staged = w.im.startStage(ctx), true
		}
		if w.stage.add(slices.Clone(w.group)) {
			clear(w.group)
			w.group, w.msgs = w.group[:0], 0
			return n, nil
		}
	}
	if err := w.endStage(ctx); err != nil {
		return 0, err
	}
	err := w.im.commit(ctx, w.group)
	// Let the plans go; the summary has what it needs.
	clear(w.group)
	w.group, w.msgs = w.group[:0], 0
	return n, err
}

// stageable reports whether a group may be staged: the source's checks
// still run and no stage ended yet.
func (w *groupWriter) stageable() bool {
	if w.im.checking == nil || (w.staged && w.stage == nil) {
		return false
	}
	select {
	case <-w.im.checking:
		return false
	default:
		return true
	}
}

// endStage ends the stage, if one is open: see importer.endStage.
func (w *groupWriter) endStage(ctx context.Context) error {
	if w.stage == nil {
		return nil
	}
	s := w.stage
	w.stage = nil
	return w.im.endStage(ctx, s)
}

// abort rolls back a stage still open (the import stops).
func (w *groupWriter) abort() {
	if w.stage != nil {
		w.stage.abort()
		w.stage = nil
	}
}

// commit writes group in one Update. If the store refuses it, each session
// is retried alone so one bad session does not sink its neighbours.
func (im *importer) commit(ctx context.Context, group []*plan) error {
	if err := im.ready(ctx); err != nil {
		return err
	}
	if im.budget != nil {
		im.budget.started()
	}
	stored, err := im.update(ctx, group)
	switch {
	case err == nil:
		im.done(group, stored)
		return nil
	case fatal(ctx, err):
		return fmt.Errorf("openclawimport: %w", err)
	case len(group) == 1:
		im.sum.skip(reasonStoreRejected, fmt.Sprintf("session %s: %v", group[0].c.key, err))
		return nil
	}
	for _, p := range group {
		if err := im.commit(ctx, []*plan{p}); err != nil {
			return err
		}
	}
	return nil
}

// fatal reports whether err ends the import rather than one session.
func fatal(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, domain.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (im *importer) update(ctx context.Context, group []*plan) ([][]domain.Message, error) {
	var stored [][]domain.Message
	err := im.st.Update(ctx, func(tx domain.Tx) error {
		// The store may run fn more than once (batching); start clean.
		var err error
		stored, err = writeGroup(tx, group)
		return err
	})
	return stored, err
}

// writeGroup writes the rows and messages of group in tx and returns the
// messages stored for each plan.
func writeGroup(tx domain.Tx, group []*plan) ([][]domain.Message, error) {
	stored := make([][]domain.Message, len(group))
	for i, p := range group {
		if p.row != nil {
			if err := tx.PutSession(*p.row); err != nil {
				return nil, fmt.Errorf("session %s: %w", p.c.key, err)
			}
		}
		if len(p.msgs) == 0 {
			continue
		}
		out, err := appendPlan(tx, p)
		if err != nil {
			return nil, fmt.Errorf("session %s: messages: %w", p.c.key, err)
		}
		stored[i] = out
	}
	return stored, nil
}

// appendPlan appends p's messages, prepared when the planner could.
func appendPlan(tx domain.Tx, p *plan) ([]domain.Message, error) {
	if pa, ok := tx.(domain.PreparedAppender); ok && p.prepared != nil {
		return pa.AppendPrepared(p.c.key, p.c.e.SessionID, p.prepared)
	}
	return tx.AppendMessages(p.c.key, p.c.e.SessionID, p.msgs)
}

// done counts a committed group and mirrors its messages.
func (im *importer) done(group []*plan, stored [][]domain.Message) {
	for i, p := range group {
		im.largest(p)
		im.sum.Sessions++
		im.sum.Messages += len(p.msgs)
		im.sum.LinesSkipped += p.lines.Skipped
		for _, s := range p.lines.Skips {
			im.sum.Skipped[linePrefix+s.Reason]++
		}
		if extra := p.lines.Skipped - len(p.lines.Skips); extra > 0 {
			im.sum.Skipped[linePrefix+"other"] += extra
		}
		for _, r := range p.counted {
			im.sum.Skipped[r]++
		}
		if im.mirror != nil && len(stored[i]) > 0 {
			im.mirror.append(p.c.key, p.c.agentID, p.c.e.SessionID, stored[i])
		}
	}
}

// largest remembers p's session if its transcript is the longest so far.
func (im *importer) largest(p *plan) {
	if p.branchLen > im.sum.LargestMessages {
		im.sum.Largest, im.sum.LargestMessages = p.c.key, p.branchLen
	}
}
