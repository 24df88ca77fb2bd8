package openclawimport

import (
	"context"
	"errors"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A stage lets the store's writer work while the source's integrity
// checks still run. Nothing may be committed before they pass, and the
// writer, the import's critical path, used to sit idle until then. The
// groups planned meanwhile are written instead in one transaction that
// stays open until the checks are over: it commits once they passed, and
// rolls back if they failed (nothing is written) or the import stops. At
// most stageMessages messages are staged; a group beyond that waits for
// the checks as before.
type stage struct {
	in   chan []*plan  // groups to write; closed once the checks are over
	quit chan struct{} // closed to roll the transaction back
	res  chan error    // the Update's result
	// finished: res was received, into result.
	finished bool
	result   error
	closed   bool // in is closed
	// groups are the groups sent, in order; stored the messages the
	// transaction stored for each group's plans, valid after res.
	groups [][]*plan
	stored [][][]domain.Message
	msgs   int
}

// stageMessages bounds the messages a stage holds: the head start's worth.
const stageMessages = planHeadStartMessages

// errStageQuit rolls back a stage the import gave up on.
var errStageQuit = errors.New("openclawimport: import stopped before the source's checks ended")

// startStage begins the staged transaction on its own goroutine; the
// caller owns it until endStage or abort returned.
func (im *importer) startStage(ctx context.Context) *stage {
	s := &stage{in: make(chan []*plan, 1), quit: make(chan struct{}), res: make(chan error, 1)}
	if im.budget != nil {
		// The writes begin now.
		im.budget.started()
	}
	var recv [][]*plan // the groups the transaction has received
	go func() {
		s.res <- im.st.Update(ctx, func(tx domain.Tx) error {
			// The store may run fn again (batching): write again what
			// the last run had received, then go on receiving.
			stored := make([][][]domain.Message, 0, len(recv))
			for _, g := range recv {
				out, err := writeGroup(tx, g)
				if err != nil {
					return err
				}
				stored = append(stored, out)
			}
			for {
				select {
				case g, ok := <-s.in:
					if !ok {
						s.stored = stored
						// Commit only a trusted source: a failed check
						// rolls every staged write back.
						return im.ready(ctx)
					}
					recv = append(recv, g)
					out, err := writeGroup(tx, g)
					if err != nil {
						return err
					}
					stored = append(stored, out)
				case <-s.quit:
					return errStageQuit
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})
	}()
	return s
}

// add sends group to the staged transaction; it reports false when the
// stage is full (the caller then ends it).
func (s *stage) add(group []*plan) bool {
	n := 0
	for _, p := range group {
		n += len(p.msgs)
	}
	if len(s.groups) > 0 && s.msgs+n > stageMessages {
		return false
	}
	if s.finished {
		return false
	}
	s.groups = append(s.groups, group)
	s.msgs += n
	select {
	case s.in <- group:
		return true
	case err := <-s.res:
		// The transaction ended early (the store refused it); the group
		// stays in groups, which endStage commits one by one.
		s.finished, s.result = true, err
		return false
	}
}

// wait returns the staged transaction's result once it ended.
func (s *stage) wait() error {
	if !s.finished {
		s.finished, s.result = true, <-s.res
	}
	return s.result
}

// end closes the stage once the checks are over (or must be waited for)
// and records its groups: committed with the checks passed, or, if the
// store refused the transaction, committed again group by group so one
// bad session does not sink the others. A failed check is returned, with
// nothing written.
func (im *importer) endStage(ctx context.Context, s *stage) error {
	if !s.closed {
		close(s.in)
		s.closed = true
	}
	err := s.wait()
	if err == nil {
		for i, g := range s.groups {
			im.done(g, s.stored[i])
		}
		return nil
	}
	if rerr := im.ready(ctx); rerr != nil {
		return rerr
	}
	if fatal(ctx, err) {
		return err
	}
	for _, g := range s.groups {
		if err := im.commit(ctx, g); err != nil {
			return err
		}
	}
	return nil
}

// abort rolls the stage back, unless it ended, and waits for its
// transaction to end.
func (s *stage) abort() {
	close(s.quit)
	s.wait()
}
