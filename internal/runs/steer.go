package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

// Steering (sessions_send mode "steer"). A steer is an ordinary queued run
// of the target session whose spec says Steer. Before each model call, a
// running run of the same session takes in the steer runs waiting in its
// lane: each is claimed (moved to running, its user message appended to
// the transcript) and its message joins the running run's context, so the
// model sees it at its next step. A joined steer ends with the outcome of
// the run it joined, after that run, and starts no follow-ups of its own.
// A steer that no running run takes in (none was running, or the run gave
// its final answer first) stays queued and runs as a followup: nothing is
// lost and nothing runs twice, because the queued run row is the message.

// steerMark is how an encoded spec marks a steer.
var steerMark = []byte(`"steer":true`)

// isSteer reports whether a queued run asks to join a running run.
// It runs for every queued run of a lane at every model step, so a
// substring test skips the decoding of every spec that is not a steer
// (encoding/json writes the field exactly so; a quote inside a string
// value is escaped, so the text of a message cannot fake it).
func isSteer(r domain.Run) bool {
	if !bytes.Contains(r.Spec, steerMark) {
		return false
	}
	var s struct {
		Steer bool `json:"steer"`
	}
	return json.Unmarshal(r.Spec, &s) == nil && s.Steer
}

// takeSteers claims the steer runs queued on host's session and returns
// the context and written messages with their user messages appended.
// showStart publishes the host's start (once) before a steer's events. It
// runs after the step limit is checked and only while the run goes on, so
// a steer never joins a run that cannot call its model again.
func (rt *Runtime) takeSteers(ctx context.Context, host domain.Run, history, written []domain.Message, showStart func()) ([]domain.Message, []domain.Message) {
	if ctx.Err() != nil || !takesSteers(host.Kind) {
		return history, written // queued steers stay followups
	}
	rt.sched.mu.Lock()
	l := rt.sched.lanes[host.SessionKey]
	var steers []domain.Run
	if l != nil && l.steers > 0 && slices.ContainsFunc(l.queue, isSteer) {
		// Some may have run as followups meanwhile: take what is queued.
		l.steers = 0
		kept := make([]domain.Run, 0, len(l.queue))
		for _, r := range l.queue {
			if isSteer(r) {
				steers = append(steers, r)
			} else {
				kept = append(kept, r)
			}
		}
		l.queue = kept
	}
	if l != nil && len(steers) == 0 {
		l.steers = 0 // the steers counted ran as followups already
	}
	rt.sched.mu.Unlock()
	for i, r := range steers {
		var c claimed
		err := rt.opts.Store.Update(context.Background(), func(tx domain.Tx) error {
			var err error
			c, err = rt.claimTx(tx, r.ID)
			return err
		})
		if errors.Is(err, errNotQueued) || errors.Is(err, replica.ErrRunTaken) {
			continue // cancelled, or taken by another replica, meanwhile
		}
		if err != nil {
			// It stays a followup: back to the front of the lane, in order.
			rt.log.Warn("steer: claim failed; it runs as a followup", "run", r.ID, "err", err)
			rt.sched.mu.Lock()
			if l := rt.sched.lanes[host.SessionKey]; l != nil {
				l.queue = append(slices.Clone(steers[i:]), l.queue...)
				l.steers += len(steers) - i
			} else {
				for _, s := range steers[i:] {
					rt.enqueueLocked(s)
				}
			}
			rt.sched.mu.Unlock()
			break
		}
		// Cancelling the steer cancels the run it joined: its message is
		// part of that run now. Its waiters are woken by its end.
		rt.exec.join(host.ID, c.run)
		rt.waits.begin(c.run.ID)
		showStart() // the host's start goes first
		rt.opts.Emit(domain.Event{Kind: domain.EventRunStart, SessionKey: c.run.SessionKey, Run: &c.run, TS: rt.now()})
		for i := range c.inbound {
			rt.opts.Emit(domain.Event{Kind: domain.EventMessage, SessionKey: c.run.SessionKey, Message: &c.inbound[i], TS: rt.now()})
		}
		history = append(history, c.inbound...)
		written = append(written, c.inbound...)
	}
	return history, written
}

// finishJoined ends the steer runs host took in with host's outcome. When
// the stop interrupted host, they stay running in the store and the next
// start resolves them by the crash rule (re-queued: they run as followups).
func (rt *Runtime) finishJoined(host domain.Run, out runOutcome) {
	joined := rt.exec.takeJoined(host.ID)
	for _, j := range joined {
		rt.waits.forget(j.ID)
	}
	if out.aborted {
		return
	}
	for _, j := range joined {
		rt.finishDurably(j, nil, runOutcome{status: out.status, reply: out.reply, err: out.err, joinedTo: host.ID})
	}
}

// markJoined records in a steer run's stored spec the run it joined
// ("joinedRunId"), so readers of the run (a waiting sessions_send, the
// operator) can tell it from a steer that ran as a followup. A spec that
// does not decode is kept as it is.
func markJoined(spec json.RawMessage, hostID string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(spec, &m) != nil || m == nil {
		return spec
	}
	id, err := json.Marshal(hostID)
	if err != nil {
		return spec
	}
	m["joinedRunId"] = id
	out, err := json.Marshal(m)
	if err != nil {
		return spec
	}
	return out
}

// takesSteers reports whether a run of kind may take in steers: the runs
// that answer someone, not the steps switchboard runs after them (a
// reply-back turn or an announce step would answer the steer as part of
// an exchange it has nothing to do with).
func takesSteers(kind domain.RunKind) bool {
	return kind != domain.RunKindReply && kind != domain.RunKindAnnounce
}
