package runs

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// finish records the end of r (unless it already ended), lets the engine
// write follow-up work in the same transaction, then wakes waiters,
// schedules follow-up runs and mirrors the run's messages.
func (rt *Runtime) finish(r domain.Run, written []domain.Message, out runOutcome) error {
	return rt.finishWhen(r, written, out, "")
}

// finishIf finishes r only while its status is want (else errNotQueued).
func (rt *Runtime) finishIf(r domain.Run, want domain.RunStatus, out runOutcome) error {
	return rt.finishWhen(r, nil, out, want)
}

func (rt *Runtime) finishWhen(r domain.Run, written []domain.Message, out runOutcome, want domain.RunStatus) error {
	now := rt.now()
	var ended domain.Run
	var next []domain.Run
	var sess domain.Session
	var final domain.Message
	// endedBefore: another hand recorded the run's end first (a replica
	// that took it over after this one's lease expired): that end was
	// published where it was recorded, so it is not published again.
	var endedBefore bool
	// The commit and the queueing of the run's mirror job are one step
	// for the session's mirror order (orderLock).
	unlockOrder := rt.mirror.orderLock(r.SessionKey)
	// The record of a run's end must land even while the runtime shuts
	// down, so it does not use the runtime's context.
	err := rt.opts.Store.Update(context.Background(), func(tx domain.Tx) error {
		next, endedBefore = next[:0], false
		cur, err := tx.GetRun(r.ID)
		if err != nil {
			return err
		}
		if want != "" && cur.Status != want {
			return errNotQueued
		}
		if want == "" && cur.Status == domain.RunQueued {
			// Queued again since this process started it: another replica
			// applied the crash rule after this one's lease was lost, and
			// the next attempt is not this one's to end.
			return replica.ErrTakenOver
		}
		if err := rt.cluster.ReleaseTx(tx, r.ID); err != nil {
			return err
		}
		if domain.RunTerminal(cur.Status) {
			ended, endedBefore = cur, true
			return nil
		}
		var stored []domain.Message
		ended, stored, sess, err = rt.endTx(tx, cur, nil, out, now, &next)
		if len(stored) > 0 {
			final = stored[0]
		}
		return err
	})
	if err != nil {
		unlockOrder()
		if out.final != nil {
			rt.cache.drop(r.SessionKey) // the cached context holds the unstored answer
		}
		return err
	}
	if final.Seq != 0 {
		written = append(written, final)
	}
	if rt.mirror != nil && len(written) > 0 {
		if ended.Attempt > 1 {
			// A retried run's first attempt stored messages the mirror may
			// lack or hold already: bring the file up to the store.
			rt.mirror.reconcile(ended.AgentID, ended.SessionKey, written[0].SessionID, lastSeq(written))
		} else {
			rt.mirror.append(ended.AgentID, ended.SessionKey, written[0].SessionID, written, lastSeq(written))
		}
	}
	unlockOrder()
	if endedBefore {
		woken := ended
		rt.wake(ended.ID, &woken)
		return nil
	}
	rt.published(ended, final, sess, next, out.showStart, now)
	return nil
}

// endTx records the end of cur inside tx: the one end-of-run transaction,
// whatever the commit strategy. cur is the run as read in tx, or a quick
// turn's run not stored yet (status domain.RunNew: it is created ended,
// with its inbound messages). It appends the final answer, updates the
// session row, charges the usage, and lets the engine write follow-ups
// (collected in next). stored is what it appended: inbound, then the final
// answer.
func (rt *Runtime) endTx(tx domain.Tx, cur domain.Run, inbound []domain.Message, out runOutcome, now int64, next *[]domain.Run) (ended domain.Run, stored []domain.Message, sess domain.Session, err error) {
	*next = (*next)[:0]
	created := cur.Status == domain.RunNew
	if out.joinedTo != "" {
		cur.Spec = markJoined(cur.Spec, out.joinedTo)
	}
	started := cur.StartedAt != 0 // only runs that ran count in the rollups
	s, err := tx.GetSession(cur.SessionKey)
	if err == nil {
		s.UpdatedAt = now
		if out.aborted {
			s.AbortedLastRun = true
		}
		if created {
			s.AbortedLastRun = false // as its claim would have
		}
		msgs := inbound
		if out.final != nil {
			msgs = append(msgs[:len(msgs):len(msgs)], *out.final)
		}
		if len(msgs) > 0 {
			if stored, err = tx.AppendMessages(cur.SessionKey, cur.SessionID, msgs); err != nil {
				return domain.Run{}, nil, domain.Session{}, err
			}
		}
		var fu *domain.Usage
		if out.final != nil {
			applyUsage(&s, out.finalUsage, out.model, out.final.Provider)
			fu = out.finalUsage
		}
		// The last step's usage and the run itself go to the session's
		// account and its ancestors' rollups in this transaction, before the
		// run's status is written: a run whose budgets above it ended
		// overspent does not end ok, whatever its last step said.
		if started {
			st, err := rt.chargeTx(tx, cur, s, fu, out.model, true)
			if err != nil {
				return domain.Run{}, nil, domain.Session{}, err
			}
			if st.overspent != nil && out.status == domain.RunOK {
				out.status, out.err = domain.RunError, st.overspent.Error()
			}
		}
		if err := tx.PutSession(s); err != nil {
			return domain.Run{}, nil, domain.Session{}, err
		}
		sess = s
	} else if created {
		return domain.Run{}, nil, domain.Session{}, err
	}
	cur.Reply, cur.Error, cur.Usage = out.reply, out.err, out.usage
	ended, fresh, err := rt.transition(tx, cur, out.status, now)
	if err != nil {
		return domain.Run{}, nil, domain.Session{}, err
	}
	if !fresh {
		return domain.Run{}, nil, domain.Session{}, errQuickStale // the idempotency key names another run now
	}
	if out.joinedTo != "" {
		return ended, stored, sess, nil // a steer that joined another run has no follow-ups of its own (steer.go)
	}
	return ended, stored, sess, rt.opts.Hooks.Finished(tx, ended, rt.followUps(tx, ended, next))
}

// followUps is the next of Hooks.Finished for the end of cur in tx: it
// creates each follow-up run and collects the new ones in next, to be
// scheduled after the commit.
func (rt *Runtime) followUps(tx domain.Tx, cur domain.Run, next *[]domain.Run) func(domain.Run) (domain.Run, error) {
	return func(n domain.Run) (domain.Run, error) {
		n = rt.fill(n)
		// The follow-ups of this process's work are its work (a
		// scoped runtime leaves the others queued).
		followUp := rt.owns(cur.ID)
		if followUp {
			rt.ownFollowUp(n.ID)
		}
		stored, created, err := rt.transition(tx, n, domain.RunQueued, n.CreatedAt)
		if err != nil {
			return domain.Run{}, err
		}
		if created {
			*next = append(*next, stored)
		} else if followUp {
			rt.disown(n.ID)
		}
		return stored, nil
	}
}

// published does what follows the commit of a run's end (and its mirror
// job): showStart (the run's start, once, when set), the events of its final
// message, its end and its session, the waiters' wake-up, the scheduling
// of its follow-ups, and the engine's AfterFinish.
func (rt *Runtime) published(ended domain.Run, final domain.Message, sess domain.Session, next []domain.Run, showStart func(), now int64) {
	if showStart != nil {
		showStart()
	}
	if final.Seq != 0 {
		rt.opts.Emit(domain.Event{Kind: domain.EventMessage, SessionKey: ended.SessionKey, Message: &final, TS: now})
	}
	woken := ended
	rt.wake(ended.ID, &woken)
	for _, n := range next {
		if !rt.owns(n.ID) {
			continue // stays queued for a process that serves
		}
		// Runs queued ahead on the follow-up's session go first.
		if err := rt.adoptAhead(context.Background(), n.SessionKey, n.ID); err != nil {
			rt.log.Error("follow-up: runs queued ahead", "run", n.ID, "err", err)
		}
		rt.enqueue(n)
	}
	rt.opts.Emit(domain.Event{Kind: domain.EventRunEnd, SessionKey: ended.SessionKey, Run: &ended, TS: now})
	if sess.Key != "" {
		rt.opts.Emit(domain.Event{Kind: domain.EventSession, SessionKey: sess.Key, Session: &sess, Reason: "updated", TS: now})
	}
	rt.opts.Hooks.AfterFinish(ended)
	// With replicas, the session's next run may have been queued on
	// another one: the lane's holder takes it.
	rt.pull(rt.exec.ctx, ended.SessionKey)
}

// lastSeq is the highest Seq among msgs.
func lastSeq(msgs []domain.Message) int64 {
	var n int64
	for _, m := range msgs {
		n = max(n, m.Seq)
	}
	return n
}
