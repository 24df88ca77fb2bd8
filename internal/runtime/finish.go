package runtime

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
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
	// The commit and the queueing of the run's mirror job are one step
	// for the session's mirror order (orderLock).
	unlockOrder := rt.mirror.orderLock(r.SessionKey)
	// The record of a run's end must land even while the runtime shuts
	// down, so it does not use the runtime's context.
	err := rt.opts.Store.Update(context.Background(), func(tx domain.Tx) error {
		next = next[:0]
		cur, err := tx.GetRun(r.ID)
		if err != nil {
			return err
		}
		if want != "" && cur.Status != want {
			return errNotQueued
		}
		if err := rt.cluster.ReleaseTx(tx, r.ID); err != nil {
			return err
		}
		if domain.RunTerminal(cur.Status) {
			ended = cur
			return nil
		}
		started := cur.StartedAt != 0 // only runs that ran count in the rollups
		end := out
		if s, err := tx.GetSession(cur.SessionKey); err == nil {
			s.UpdatedAt = now
			if out.aborted {
				s.AbortedLastRun = true
			}
			if out.final != nil {
				stored, err := tx.AppendMessages(cur.SessionKey, cur.SessionID, []domain.Message{*out.final})
				if err != nil {
					return err
				}
				final = stored[0]
				applyUsage(&s, out.finalUsage, out.model, out.final.Provider)
			}
			// The last step's usage and the run itself go to the session's
			// account and its ancestors' rollups in this transaction.
			if started {
				var fu *domain.Usage
				if out.final != nil {
					fu = out.finalUsage
				}
				st, err := rt.chargeTx(tx, cur, s, fu, out.model, true)
				if err != nil {
					return err
				}
				// A run whose budgets above it ended overspent does not end
				// ok, whatever its last step said.
				if st.overspent != nil && end.status == domain.RunOK {
					end.status, end.err = domain.RunError, st.overspent.Error()
				}
			}
			if err := tx.PutSession(s); err != nil {
				return err
			}
			sess = s
		}
		endRun(&cur, end, now)
		if err := tx.PutRun(cur); err != nil {
			return err
		}
		ended = cur
		if out.joinedTo != "" {
			return nil // a steer that joined another run has no follow-ups of its own (steer.go)
		}
		return rt.opts.Hooks.Finished(tx, cur, rt.followUps(tx, cur, &next))
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
	rt.published(ended, final, sess, next, out.announce, now)
	return nil
}

// endRun sets on cur the end out describes, at now.
func endRun(cur *domain.Run, out runOutcome, now int64) {
	cur.Status = out.status
	cur.Reply = out.reply
	cur.Error = out.err
	cur.Usage = out.usage
	cur.EndedAt = now
	cur.UpdatedAt = now
	if cur.StartedAt == 0 && out.status != domain.RunCancelled {
		cur.StartedAt = now
	}
	if out.joinedTo != "" {
		cur.Spec = markJoined(cur.Spec, out.joinedTo)
	}
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
			rt.claimFollowUp(n.ID)
		}
		stored, created, err := tx.CreateRun(n)
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
// job): announce (the run's start, once, when set), the events of its final
// message, its end and its session, the waiters' wake-up, the scheduling
// of its follow-ups, and the engine's AfterFinish.
func (rt *Runtime) published(ended domain.Run, final domain.Message, sess domain.Session, next []domain.Run, announce func(), now int64) {
	if announce != nil {
		announce()
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
	rt.pull(rt.ctx, ended.SessionKey)
}

// lastSeq is the highest Seq among msgs.
func lastSeq(msgs []domain.Message) int64 {
	var n int64
	for _, m := range msgs {
		n = max(n, m.Seq)
	}
	return n
}
