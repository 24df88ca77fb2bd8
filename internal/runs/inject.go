package runs

import (
	"context"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Inject appends msgs to the transcript of session key outside any run
// (sessions_send mode "notify"): no model is called and no run starts.
// prepare runs first in the same transaction and returns the session row
// (creating it if needed). The stored messages are returned with their ids.
//
// Every other transcript write belongs to the session's lane, which is
// what keeps the context cache and the JSONL mirror exact; a message
// written beside a running run would be missing from both. So when the
// lane is busy the run's cached context is refused once (the next run
// reads the store) and the mirror catches the session up from the store
// when that run's messages are written; when it is idle the message is
// mirrored at once.
func (rt *Runtime) Inject(ctx context.Context, key string, msgs []domain.Message, prepare func(tx domain.Tx) (domain.Session, error)) ([]domain.Message, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	now := rt.now()
	var stored []domain.Message
	var sess domain.Session
	// The commit and the mirror decision below are one step for the
	// session's mirror order (orderLock).
	unlockOrder := rt.mirror.orderLock(key)
	defer unlockOrder()
	err := rt.opts.Store.Update(ctx, func(tx domain.Tx) error {
		s, err := prepare(tx)
		if err != nil {
			return err
		}
		if s.Key != key {
			return fmt.Errorf("inject: prepare returned session %q for %q", s.Key, key)
		}
		in := make([]domain.Message, len(msgs))
		for i, m := range msgs {
			if m.Timestamp == 0 {
				m.Timestamp = now
			}
			in[i] = m
		}
		stored, err = tx.AppendMessages(key, s.SessionID, in)
		if err != nil {
			return err
		}
		// Later than the row's last update even within its millisecond:
		// a quick turn that read the row before checks it at its commit
		// to learn that its context lacks these messages (quick.go).
		s.UpdatedAt = max(now, s.UpdatedAt+1)
		if err := tx.PutSession(s); err != nil {
			return err
		}
		sess = s
		return nil
	})
	if err != nil {
		return nil, err
	}
	rt.sched.mu.Lock()
	busy := rt.sched.lanes[key] != nil
	late := false
	if busy {
		rt.cache.markStale(key)
		if rt.mirror != nil {
			late = rt.mirror.behind(sess.AgentID, key, sess.SessionID, firstSeq(stored), lastSeq(stored))
		}
	} else {
		// No run of this session can start before the lock is released:
		// its messages come after these, in the store and in the mirror.
		rt.cache.drop(key)
		if rt.mirror != nil {
			rt.mirror.append(sess.AgentID, key, sess.SessionID, stored, lastSeq(stored))
		}
	}
	rt.sched.mu.Unlock()
	if late {
		// A run that ended between this commit and the lock above had its
		// later messages written already: no coming append carries these.
		rt.mirror.reconcile(sess.AgentID, key, sess.SessionID, lastSeq(stored))
	}
	for i := range stored {
		rt.opts.Emit(domain.Event{Kind: domain.EventMessage, SessionKey: key, Message: &stored[i], TS: now})
	}
	rt.opts.Emit(domain.Event{Kind: domain.EventSession, SessionKey: key, Session: &sess, Reason: "updated", TS: now})
	return stored, nil
}

// behind records that the file of a session lacks messages first..seq
// that a running run's append will not carry: that append, and any before
// it reaches seq, becomes a reconcile with the store. The commit of those
// messages and this call are not atomic: a run of the session may have
// committed later messages and had them written in between. Then the file
// lacks these in the middle; behind marks it for a whole-file reconcile
// and reports true, and the caller queues that reconcile (no append of a
// later run is sure to come).
func (w *mirrorWriter) behind(agentID, key, sessionID string, first, seq int64) bool {
	s := mirrorSession{agentID, key, sessionID}
	w.dirtyMu.Lock()
	defer w.dirtyMu.Unlock()
	w.dirty[s] = max(w.dirty[s], seq)
	if w.written[s] >= first {
		w.unordered[s] = true
		return true
	}
	return false
}

// prelude returns msgs stamped as written by run runID at now (the copied
// transcript of a forked sub-agent, appended before its task).
func prelude(msgs []domain.Message, runID string, now int64) []domain.Message {
	out := make([]domain.Message, len(msgs))
	for i, m := range msgs {
		m.RunID = runID
		if m.Timestamp == 0 {
			m.Timestamp = now
		}
		out[i] = m
	}
	return out
}
