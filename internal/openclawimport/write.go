package openclawimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// write records the plans of one chunk in the summary and writes the
// sessions that need it in Updates of at most BatchSize sessions and
// about batchMessages messages.
func (im *importer) write(ctx context.Context, plans []plan) error {
	var group []*plan
	groupMsgs := 0
	for i := range plans {
		p := &plans[i]
		if p.err != nil {
			return p.err
		}
		for _, w := range p.warnings {
			im.sum.warn(w)
		}
		if p.skip == "" {
			for _, w := range p.transcriptWarnings {
				im.sum.warn(w)
			}
		}
		if p.skip == reasonUnchanged {
			im.largest(p)
		}
		if p.skip != "" {
			im.sum.skip(p.skip, "")
			continue
		}
		if p.row == nil && len(p.msgs) == 0 {
			continue
		}
		if len(group) > 0 && (len(group) >= im.opts.BatchSize || groupMsgs+len(p.msgs) > batchMessages) {
			if err := im.commit(ctx, group); err != nil {
				return err
			}
			group, groupMsgs = group[:0], 0
		}
		group = append(group, p)
		groupMsgs += len(p.msgs)
	}
	if len(group) > 0 {
		return im.commit(ctx, group)
	}
	return nil
}

// commit writes group in one Update. If the store refuses it, each session
// is retried alone so one bad session does not sink its neighbours.
func (im *importer) commit(ctx context.Context, group []*plan) error {
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
		stored = make([][]domain.Message, len(group))
		for i, p := range group {
			if p.row != nil {
				if err := tx.PutSession(*p.row); err != nil {
					return fmt.Errorf("session %s: %w", p.c.key, err)
				}
			}
			if len(p.msgs) == 0 {
				continue
			}
			out, err := tx.AppendMessages(p.c.key, p.c.e.SessionID, p.msgs)
			if err != nil {
				return fmt.Errorf("session %s: messages: %w", p.c.key, err)
			}
			stored[i] = out
		}
		return nil
	})
	return stored, err
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
		if im.opts.Mirror != nil && len(stored[i]) > 0 {
			if err := im.opts.Mirror.Append(p.c.agentID, p.c.e.SessionID, stored[i]); err != nil {
				im.sum.warn(fmt.Sprintf("session %s: mirror: %v", p.c.key, err))
			}
		}
	}
}

// largest remembers p's session if its transcript is the longest so far.
func (im *importer) largest(p *plan) {
	if p.branchLen > im.sum.LargestMessages {
		im.sum.Largest, im.sum.LargestMessages = p.c.key, p.branchLen
	}
}
