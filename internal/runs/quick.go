package runs

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/growstack"
)

// A quick turn is a chat turn written in one transaction: alone on a
// SQLite store, the run's claim (its row, its user message, the session
// row) is not committed before the model is called. The turn reads its
// session and context without writing, calls the model with the unsaved
// user message and holds back everything it would publish. When the model
// gives its final text answer within quickGrace, one writer fn checks that
// nothing changed meanwhile and writes the user message, the run already
// ended, the reply, the session row once and the charge (fold); then the
// events go out in their usual order and Submit returns. Anything else —
// the grace passes, a tool call, a steer, an error, a check that fails —
// commits the claim the ordinary way first, then publishes what was held
// and goes on as an ordinary run. Nothing is shown, acknowledged or
// mirrored before a commit (docs/design.md#durability); a crash before the commit loses a
// turn nobody was told of, as a crash before the claim's commit always
// did. docs/decisions.md#one-transaction-per-quick-turn.

// quickGrace is how long Submit waits for a quick turn's final answer
// before it commits the claim the ordinary way. The acknowledgement of
// every chat turn is late by up to this much, so it is a few
// milliseconds: enough for the built-in script model on a cached context
// (microseconds of work) to be scheduled and answer on a loaded machine,
// far less than a remote model's first token takes, so such a turn loses
// only this wait and no work (its model call goes on).
const quickGrace = 5 * time.Millisecond

// errQuickStale makes a fold's fn give up: the session, its transcript or
// the run's idempotency key changed since the turn read them.
var errQuickStale = errors.New("quick turn: changed since it was read")

// errQuickDropped ends the model call of a quick turn whose claim was
// refused (its idempotency key names another run, or the write failed).
var errQuickDropped = errors.New("quick turn: claim not committed")

// QuickStats counts quick turns: Folded were written in one transaction,
// Claimed committed their claim first (the grace passed, a tool call, an
// error…), Discarded threw away a model answer given for a session that
// changed meanwhile and asked the model again.
type QuickStats struct {
	Folded, Claimed, Discarded int64
}

type quickCounters struct{ folded, claimed, discarded atomic.Int64 }

// QuickTurns returns the counts of quick turns so far.
func (rt *Runtime) QuickTurns() QuickStats {
	return QuickStats{Folded: rt.quick.folded.Load(), Claimed: rt.quick.claimed.Load(), Discarded: rt.quick.discarded.Load()}
}

// quickState is where a quick turn stands.
type quickState int

const (
	// quickOpen: nothing is written; events are held.
	quickOpen quickState = iota
	// quickFolding: the model answered; its fold is being committed.
	quickFolding
	// quickClaiming: the ordinary claim is being committed.
	quickClaiming
	// quickClaimed: the claim committed; the run goes on as any other.
	quickClaimed
	// quickFolded: the whole turn committed and was published.
	quickFolded
	// quickFailed: nothing was written (an error, or the idempotency
	// key names another run); the turn stops.
	quickFailed
)

// quickTurn is one quick turn, shared by Submit and the turn's executor.
type quickTurn struct {
	rt *Runtime
	// ctx is Submit's (its writes are the submission's).
	ctx     context.Context
	run     domain.Run // as its claim would write it: running
	user    domain.Message
	snap    domain.Session // the session as read before the model call
	claim   func(tx domain.Tx) (claimed, bool, error)
	prepare func(tx domain.Tx) error
	// model is the plan's model reference (set by the executor).
	model string
	// stop ends the turn's model call when its claim fails.
	stop context.CancelCauseFunc

	mu    sync.Mutex
	state quickState
	held  []domain.Event
	// resolved is closed once the state is claimed, folded or failed.
	resolved chan struct{}
	// Set before resolved is closed.
	c       claimed
	stored  domain.Run
	created bool
	err     error
	// stale: the claim found the session changed since it was read; the
	// answer of the model call made before it is thrown away.
	stale bool
}

// quickEligible reports whether r, whose spec is spec, may run as a quick
// turn: a plain chat turn of a runtime alone on a store that commits
// durably at once (not PostgreSQL's deferred commits).
func (rt *Runtime) quickEligible(r domain.Run, spec *Spec) bool {
	if rt.quickGrace <= 0 || rt.shared() || rt.scoped() || spec == nil {
		return false
	}
	if _, deferred := rt.opts.Store.(domain.DeferredStore); deferred {
		return false
	}
	if r.Kind != domain.RunKindChat && r.Kind != domain.RunKindAgent {
		return false
	}
	return r.ParentRunID == "" && r.Attempt == 1 && spec.UserMessage != nil && len(spec.Prelude) == 0 && !spec.Steer && spec.Payer == ""
}

// submitQuick carries out Submit for a quick turn: r is filled, its lane
// reserved (res), its context registered (runCtx, done) and spec decoded;
// read, when set, is the session row as the caller read it. handled is
// false when the session cannot be read or is a sub-agent's (its budgets
// are read in the claim): the caller goes the ordinary way.
func (rt *Runtime) submitQuick(ctx context.Context, r domain.Run, spec *Spec, read *domain.Session, prepare func(tx domain.Tx) error,
	res *reservation, runCtx context.Context, done func()) (stored domain.Run, created, handled bool, err error) {
	var snap domain.Session
	if read != nil && read.Key == r.SessionKey {
		snap = *read
	} else if snap, err = rt.opts.Store.GetSession(ctx, r.SessionKey); err != nil {
		return domain.Run{}, false, false, nil
	}
	if snap.SpawnedBy != "" {
		return domain.Run{}, false, false, nil
	}
	now := rt.now()
	run := moved(r, domain.RunRunning, now) // as its claim would write it
	run.SessionID = snap.SessionID
	user := *spec.UserMessage
	user.RunID = run.ID
	if user.Timestamp == 0 {
		user.Timestamp = now
	}
	mctx, stop := context.WithCancelCause(runCtx)
	q := &quickTurn{rt: rt, ctx: ctx, run: run, user: user, snap: snap,
		prepare: prepare, stop: stop, resolved: make(chan struct{})}
	q.claim = func(tx domain.Tx) (claimed, bool, error) {
		q.stale = !q.unchanged(tx)
		if prepare != nil {
			if err := prepare(tx); err != nil {
				return claimed{}, false, err
			}
		}
		return rt.createStartedTx(tx, r, spec)
	}
	go func() {
		defer rt.sched.wg.Done()
		growstack.Grow()
		rt.carryOutQuick(mctx, q)
		stop(nil)
		done()
		<-res.sem
		rt.drainLane(res.key, res.lane)
	}()
	timer := time.NewTimer(rt.quickGrace)
	select {
	case <-q.resolved:
	case <-timer.C:
		q.claimNow()
	case <-ctx.Done():
		q.claimNow()
	}
	timer.Stop()
	<-q.resolved
	switch q.state {
	case quickFolded:
		// The run as its claim would have returned it: the caller sees a
		// run it may wait for, as after an ordinary claim.
		return q.run, true, true, nil
	case quickClaimed:
		return q.c.run, true, true, nil
	}
	rt.disown(r.ID)
	if q.err != nil {
		return domain.Run{}, false, true, q.err
	}
	// Its idempotency key names an earlier run.
	if err := rt.adoptExisting(ctx, q.stored); err != nil {
		return domain.Run{}, false, true, err
	}
	return q.stored, false, true, nil
}

// unchanged reports, inside tx, whether the session row is as the turn
// read it, field for field: not deleted, not reset, not patched. Every
// transcript write outside the session's lane (Inject) moves the row's
// updatedAt forward, so the context read with the row lacks no message.
func (q *quickTurn) unchanged(tx domain.Tx) bool {
	s, err := tx.GetSession(q.run.SessionKey)
	return err == nil && sameSession(s, q.snap)
}

// sameSession reports whether a and b hold the same values.
func sameSession(a, b domain.Session) bool {
	if !samePointee(a.Origin, b.Origin) || !samePointee(a.Delivery, b.Delivery) {
		return false
	}
	a.Origin, a.Delivery, b.Origin, b.Delivery = nil, nil, nil, nil
	return a == b
}

func samePointee[T comparable](a, b *T) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// claimNow commits the turn's claim the ordinary way unless its fold or
// claim is under way, and waits for the outcome. It reports the claim and
// whether the run goes on.
func (q *quickTurn) claimNow() (claimed, bool) {
	q.mu.Lock()
	mine := q.state == quickOpen
	if mine {
		q.state = quickClaiming
	}
	q.mu.Unlock()
	if mine {
		q.commitClaim()
	}
	<-q.resolved
	return q.c, q.state == quickClaimed
}

// commitClaim writes the claim (state quickClaiming, set by the caller),
// then publishes the run's start and the events held until then.
func (q *quickTurn) commitClaim() {
	rt := q.rt
	var c claimed
	var created bool
	err := rt.opts.Store.Update(q.ctx, func(tx domain.Tx) error {
		var err error
		c, created, err = q.claim(tx)
		return err
	})
	q.mu.Lock()
	defer q.mu.Unlock()
	defer close(q.resolved)
	q.stored, q.created, q.err = c.run, created, err
	if err != nil || !created {
		q.state, q.held = quickFailed, nil
		q.stop(errQuickDropped)
		return
	}
	rt.quick.claimed.Add(1)
	c.showStart = rt.starter(c)
	c.showStart()
	if !q.stale {
		for _, ev := range q.held {
			rt.opts.Emit(ev)
		}
	}
	q.held = nil
	q.c, q.state = c, quickClaimed
}

// deltaFunc is the OnDelta of a quick turn's model call. A model that
// streams is answering at length, so its turn will not fold in time: the
// first delta commits the claim at once, on the model's goroutine, and
// goes out right after it rather than waiting for the grace (a streamed
// delta is shown within a commit of the provider producing it). Deltas
// that come while a claim is being committed are held until it commits,
// dropped when the answer is thrown away, and published as they come
// after.
func (q *quickTurn) deltaFunc() domain.DeltaFunc {
	var text strings.Builder
	return func(d domain.ModelDelta) {
		if d.Text == "" && d.ToolCall == nil {
			return
		}
		text.WriteString(d.Text)
		ev := domain.Event{Kind: domain.EventDelta, SessionKey: q.run.SessionKey, TS: q.rt.now(),
			Delta: &domain.RunDelta{RunID: q.run.ID, Step: 0, Delta: d, Accumulated: text.String()}}
		q.mu.Lock()
		switch {
		case q.state == quickOpen:
			q.held = append(q.held, ev)
			q.state = quickClaiming
			q.mu.Unlock()
			q.commitClaim() // publishes ev when the claim commits
			return
		case q.state == quickClaiming:
			q.held = append(q.held, ev)
		case q.state == quickClaimed && !q.stale:
			q.rt.opts.Emit(ev)
		}
		q.mu.Unlock()
	}
}

// carryOutQuick is a quick turn's executor: the model call on the unsaved
// user message, then its fold, or the ordinary run from where it stands.
func (rt *Runtime) carryOutQuick(ctx context.Context, q *quickTurn) {
	run := q.run
	if run.TimeoutMs > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, time.Duration(run.TimeoutMs)*time.Millisecond, errTimeout)
		defer stop()
	}
	first, final := rt.quickCall(ctx, q)
	discarded := false
	if final != nil {
		q.mu.Lock()
		mine := q.state == quickOpen
		if mine {
			q.state = quickFolding
		}
		q.mu.Unlock()
		if mine {
			if rt.fold(q, first.prior, *final, first.resp.Message.Usage) {
				return
			}
			// The answer was given for a session that changed (or the
			// write failed): it is thrown away, the claim is committed
			// the ordinary way and the model is asked again. Only a
			// quick turn comes here, whose model call was cheap.
			rt.quick.discarded.Add(1)
			discarded = true
			q.mu.Lock()
			q.state, q.held = quickClaiming, nil
			q.mu.Unlock()
			q.commitClaim()
		}
	}
	c, ok := q.claimNow()
	if !ok {
		return
	}
	if q.stale || discarded {
		// The session changed before the claim (or the fold): the context
		// read and the answer to it are of another transcript, or of a
		// turn that may not be written as it is; the run starts over.
		rt.carryOut(ctx, c)
		return
	}
	c.first = first
	rt.carryOut(ctx, c)
}

// quickCall plans the turn and calls its model on the context with the
// unsaved user message. first is what the ordinary run may go on from
// (nil: nothing), final the model's final text answer, when it gave one
// and the turn may fold it.
func (rt *Runtime) quickCall(ctx context.Context, q *quickTurn) (first *firstStep, final *domain.Message) {
	run, sess := q.run, q.snap
	plan, err := rt.opts.Hooks.Prepare(ctx, run, sess)
	if err != nil || plan.Provider != nil {
		// A remote agent's call shows the message outside: not before
		// it is committed. A plan that fails fails the ordinary run too.
		return nil, nil
	}
	provider, modelID, err := rt.opts.Models.Resolve(plan.ModelRef)
	if err != nil {
		return nil, nil
	}
	q.model = plan.ModelRef
	prior, ok := rt.cache.take(run.SessionKey, sess.SessionID)
	if !ok {
		prior, err = rt.opts.Store.ReadMessages(ctx, run.SessionKey, domain.MessageQuery{SessionID: sess.SessionID, Limit: rt.opts.ContextMessages})
		if err != nil {
			return nil, nil
		}
	}
	first = &firstStep{prior: prior}
	rt.sched.mu.Lock()
	l := rt.sched.lanes[run.SessionKey]
	steers := l != nil && l.steers > 0
	rt.sched.mu.Unlock()
	if steers {
		return first, nil // they join the ordinary run's first step
	}
	// No copy of the context (up to ContextMessages messages): the user
	// message goes into prior's spare room, which the fold or the
	// ordinary run then fills with the stored one.
	history := append(prior, q.user)
	if len(history) > rt.opts.ContextMessages {
		history = history[len(history)-rt.opts.ContextMessages:]
	}
	resp, err := completeTraced(ctx, provider, plan.request(run, modelID, history, q.deltaFunc()), plan.ModelRef)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	first.called, first.resp, first.err = true, resp, err
	msg := resp.Message
	if err != nil || len(msg.Content.ToolCalls()) > 0 || msg.StopReason == domain.StopReasonError || msg.Content.Text() == "" {
		return first, nil
	}
	msg.Role = domain.RoleAssistant
	msg.RunID = run.ID
	if msg.Timestamp == 0 {
		msg.Timestamp = rt.now()
	}
	return first, &msg
}

// fold writes the whole turn in one transaction and publishes it; false
// when it wrote nothing (the session changed, the idempotency key was
// taken, the write failed).
func (rt *Runtime) fold(q *quickTurn, prior []domain.Message, msg domain.Message, usage *domain.Usage) bool {
	key := q.run.SessionKey
	out := runOutcome{status: domain.RunOK, reply: msg.Content.Text(), final: &msg, finalUsage: usage}
	if usage != nil {
		out.usage = *usage
	}
	out.model = q.model
	now := rt.now()
	var ended domain.Run
	var stored []domain.Message
	var sess domain.Session
	var next []domain.Run
	unlockOrder := rt.mirror.orderLock(key)
	err := rt.opts.Store.Update(q.ctx, func(tx domain.Tx) error {
		if !q.unchanged(tx) {
			return errQuickStale
		}
		if q.prepare != nil {
			if err := q.prepare(tx); err != nil {
				return err
			}
		}
		var err error
		ended, stored, sess, err = rt.endTx(tx, unstored(q.run), []domain.Message{q.user}, out, now, &next)
		return err
	})
	if err != nil {
		unlockOrder()
		if !errors.Is(err, errQuickStale) {
			rt.log.Warn("quick turn: the write failed; committing its claim first", "run", q.run.ID, "err", err)
		}
		return false
	}
	if rt.mirror != nil {
		rt.mirror.append(ended.AgentID, key, sess.SessionID, stored, lastSeq(stored))
	}
	unlockOrder()
	rt.cache.put(key, sess.SessionID, append(prior, stored...), rt.opts.ContextMessages)
	rt.quick.folded.Add(1)
	c := claimed{run: q.run, inbound: stored[:1]}
	showStart := func() {
		rt.starter(c)()
		q.mu.Lock()
		for _, ev := range q.held {
			rt.opts.Emit(ev)
		}
		q.held = nil
		q.mu.Unlock()
		rt.progress.end(q.run.ID)
	}
	rt.published(ended, stored[1], sess, next, showStart, now)
	q.mu.Lock()
	q.state = quickFolded
	q.mu.Unlock()
	close(q.resolved)
	return true
}
