package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/replica"
)

var errNotQueued = errors.New("run is not queued")

// errResetSinceFirstAttempt: a re-queued run (attempt 2) finds its session
// in another transcript generation than the one its first attempt stored
// its inbound message in. Only a reset starts a new generation, and a
// reset cancels every run of the session that is queued or running; this
// one was running, and the process died before its cancel was recorded.
// It ends cancelled, as it would have without the crash: run again it
// would answer in a transcript that does not hold its message (and
// storing the message again would store it twice, once in the archived
// transcript). docs/design.md#the-crash-rule.
var errResetSinceFirstAttempt = errors.New("the session was reset after the run's first attempt began")

// resetCancelText is the error of a run ended by errResetSinceFirstAttempt.
const resetCancelText = "cancelled: the session was reset while the run was in progress"

// runOutcome is how a run ended.
type runOutcome struct {
	status  domain.RunStatus
	reply   string
	err     string
	aborted bool
	usage   domain.Usage
	model   string
	// final is the run's last assistant message, not yet stored: finish
	// appends it in the transaction that ends the run.
	final      *domain.Message
	finalUsage *domain.Usage
	// joinedTo marks the end of a steer run that joined the run with this
	// id: it shares that run's outcome and starts no follow-ups.
	joinedTo string
	// showStart, when set, publishes the run's start (once) before the
	// events of its end.
	showStart func()
}

// claimed is a run moved to running, with the session row and the
// inbound message its claim wrote.
type claimed struct {
	run     domain.Run
	sess    domain.Session
	inbound []domain.Message
	budget  budgetState
	// durable, when set, is the deferred commit of the claim (Submit):
	// nothing of the run is published before it is durable.
	durable domain.Durable
	// showStart publishes the run's start once the claim is durable; set
	// by carryOut (or, for a deferred claim, by Submit).
	showStart func()
	// first, when set, is what a quick turn did before its claim was
	// committed (quick.go): the run goes on from there.
	first *firstStep
}

// firstStep is the part of a run's first model step a quick turn did
// before its claim was committed: the context it read, and, when called,
// the model's answer to it with the run's inbound message unsaved.
type firstStep struct {
	// prior is the session's context before the run's inbound messages.
	prior []domain.Message
	// called says resp and err are the answer of the run's first model
	// call (made with the same plan, on the same context).
	called bool
	resp   domain.ModelResponse
	err    error
}

// activate registers a run as executing here, so Cancel can reach it, and
// returns its context and the function that unregisters it.
func (rt *Runtime) activate(r domain.Run) (context.Context, func()) {
	id := r.ID
	ctx, cancel := context.WithCancelCause(rt.exec.ctx)
	ctx, endSpan := traceRun(ctx, r)
	rt.exec.add(id, cancel)
	rt.waits.begin(id)
	return ctx, func() {
		rt.exec.remove(id)
		// Waiters that came after its end (or while it waited for its
		// lane) skipped reading it (Wait): they read it now.
		set, ended := rt.waits.exit(id)
		endSpan(ended)
		cancel(nil)
		for w := range set {
			close(w.done)
		}
	}
}

// execute claims a queued run and carries it out. Errors are recorded on
// the run; a claim that fails for a transient reason (the store cannot
// write: full disk, I/O error) is tried again until it commits or the
// runtime stops (the run then stays queued for the next start).
func (rt *Runtime) execute(r domain.Run) {
	if rt.cancels.parentCancelling(r) {
		err := rt.finishIf(r, domain.RunQueued, runOutcome{status: domain.RunCancelled, err: "cancelled before it started"})
		if err != nil && !errors.Is(err, errNotQueued) {
			rt.log.Error("cancel queued run of a cancelled parent", "run", r.ID, "err", err)
		}
		return
	}
	ctx, done := rt.activate(r)
	defer done()
	var c claimed
	for delay := retryFirst; ; delay = nextDelay(delay) {
		if rt.exec.ctx.Err() != nil {
			return // shutting down: the run stays queued for the next start
		}
		var err error
		c, err = rt.claim(r)
		if errors.Is(err, errNotQueued) || errors.Is(err, replica.ErrRunTaken) {
			return
		}
		if errors.Is(err, errResetSinceFirstAttempt) {
			err = rt.finishIf(r, domain.RunQueued, runOutcome{status: domain.RunCancelled, err: resetCancelText})
			if err == nil || errors.Is(err, errNotQueued) || errors.Is(err, replica.ErrTakenOver) {
				rt.log.Info("re-queued run ended cancelled: its session was reset since its first attempt", "run", r.ID)
				return
			}
		}
		if busy := (*replica.LaneBusyError)(nil); errors.As(err, &busy) {
			rt.laneBusy(busy)
			return
		}
		if err == nil {
			rt.underLease(r.ID)
			break
		}
		if !transient(err) {
			// The run is still queued: its end is the "claim fails" edge
			// (finish would take a queued run for one another replica
			// queued again, and leave it).
			rt.log.Error("run claim failed", "run", r.ID, "err", err)
			out := runOutcome{status: domain.RunError, err: errorText(err)}
			if err := rt.finishIf(r, domain.RunQueued, out); err != nil && !errors.Is(err, errNotQueued) {
				rt.log.Error("recording the failed claim failed; the run stays queued for the next start", "run", r.ID, "err", err)
			}
			return
		}
		rt.log.Warn("run claim failed; retrying", "run", r.ID, "err", err, "retryIn", delay)
		if !rt.sleep(ctx, delay) {
			return
		}
	}
	rt.carryOut(ctx, c)
}

// carryOut runs a claimed run's model loop and records its end. A run the
// runtime's stop interrupted before any of its tool calls executed is
// queued again for the next start (the crash rule), once.
func (rt *Runtime) carryOut(ctx context.Context, c claimed) {
	run, sess, inbound := c.run, c.sess, c.inbound
	written := append([]domain.Message(nil), inbound...)
	if run.Attempt > 1 {
		// The first attempt stored the inbound message, which the mirror
		// may or may not have: its end reconciles the mirror with the
		// store instead of appending (finish).
		rt.cache.drop(run.SessionKey)
	}
	showStart := c.showStart
	if showStart == nil {
		showStart = rt.starter(c)
	}
	if c.durable == nil {
		showStart()
	}
	// (A deferred claim is shown by Submit once durable, or here
	// before the run's first event: a delta, a tool call, its end.)
	// Runs the tools submit are follow-ups of this one.
	runCtx := FollowUpOf(ctx, run.ID)
	if run.TimeoutMs > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeoutCause(ctx, time.Duration(run.TimeoutMs)*time.Millisecond, errTimeout)
		defer stop()
	}
	// A seconds budget above the run is an absolute deadline; tools see it
	// as the context's deadline and pass the remaining time down.
	if c.budget.deadline > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithDeadlineCause(runCtx, time.UnixMilli(c.budget.deadline), c.budget.deadlineCause)
		defer stop()
	}
	toolsStarted := false
	budget := c.budget
	out, msgs := rt.loop(runCtx, run, sess, inbound, &toolsStarted, &budget, showStart, c.first)
	// The record goes before the end is written: a reader that sees the
	// run ended never sees it still in progress.
	rt.progress.end(run.ID)
	written = append(written, msgs...)
	defer rt.finishJoined(run, out)
	if out.aborted && !toolsStarted && max(run.Attempt, 1) < MaxAttempts {
		err := rt.recovery.requeue(run)
		if err == nil {
			rt.cache.drop(run.SessionKey)
			rt.log.Info("run interrupted by the stop before any tool call; queued again", "run", run.ID)
			return
		}
		if errors.Is(err, errCancelRequested) {
			out = cancelledOutcome // (another replica asked to cancel it)
		} else {
			rt.log.Warn("re-queue of an interrupted run failed; recording it as aborted", "run", run.ID, "err", err)
		}
	}
	out.showStart = showStart
	rt.finishDurably(run, written, out)
}

// starter returns the function that publishes c's start once: the run
// start event, its inbound messages, its progress record. For a deferred
// claim it first waits until the claim is durable (docs/design.md#durability: nothing is
// shown before it is committed).
func (rt *Runtime) starter(c claimed) func() {
	run, inbound, durable := c.run, c.inbound, c.durable
	return sync.OnceFunc(func() {
		if durable != nil {
			if err := durable.Wait(rt.exec.ctx); err != nil {
				rt.log.Warn("run start: waiting for the claim to be durable failed", "run", run.ID, "err", err)
			}
		}
		rt.opts.Emit(domain.Event{Kind: domain.EventRunStart, SessionKey: run.SessionKey, Run: &run, TS: rt.now()})
		for i := range inbound {
			rt.opts.Emit(domain.Event{Kind: domain.EventMessage, SessionKey: run.SessionKey, Message: &inbound[i], TS: rt.now()})
		}
		rt.progress.start(run)
	})
}

// Retry delays of writes that must land (a run's claim and end).
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = 5 * time.Second
)

func nextDelay(d time.Duration) time.Duration { return min(2*d, retryMax) }

// sleep waits d; it reports false when the runtime stopped first.
func (rt *Runtime) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-rt.exec.ctx.Done():
		return false
	}
}

// transient reports a store failure worth retrying: the store answered
// that it cannot write now (full disk, I/O error).
func transient(err error) bool { return domain.ErrorCode(err) == domain.CodeUnavailable }

// finishDurably records the end of r, retrying until the record commits:
// a run is never left running because its end could not be written. A
// failure that is not transient ends the run with that error instead. When
// the runtime stops first, the run stays running in the store and the next
// start applies the crash rule to it.
func (rt *Runtime) finishDurably(r domain.Run, written []domain.Message, out runOutcome) {
	for delay := retryFirst; ; delay = nextDelay(delay) {
		err := rt.finish(r, written, out)
		if err == nil {
			return
		}
		if errors.Is(err, replica.ErrTakenOver) {
			rt.log.Error("run end not recorded: another replica took the run over", "run", r.ID)
			return
		}
		if !transient(err) {
			rt.log.Error("run finish failed; recording the failure as the run's end", "run", r.ID, "err", err)
			out = runOutcome{status: domain.RunError, err: "recording the end of the run failed: " + errorText(err), usage: out.usage, model: out.model, showStart: out.showStart}
			// The final answer could not be stored; the messages written
			// before it still go to the mirror.
		} else {
			rt.log.Warn("run finish failed; retrying", "run", r.ID, "err", err, "retryIn", delay)
		}
		if !rt.sleep(context.Background(), delay) {
			rt.log.Error("run end not recorded before the stop; the next start resolves it", "run", r.ID, "err", err)
			return
		}
	}
}

// claim moves a queued run to running in its own transaction.
func (rt *Runtime) claim(r domain.Run) (claimed, error) {
	var c claimed
	// Not the runs' context: a claim that committed must not be reported as failed
	// because shutdown began meanwhile.
	err := rt.opts.Store.Update(context.Background(), func(tx domain.Tx) error {
		var err error
		c, err = rt.claimTx(tx, r.ID)
		return err
	})
	return c, err
}

// claimTx moves a queued run to running inside tx and appends its inbound
// user message.
func (rt *Runtime) claimTx(tx domain.Tx, id string) (claimed, error) {
	// (The claim may wait for the session's lane: its time is after.)
	if err := rt.cluster.ClaimTx(tx, id); err != nil {
		return claimed{}, err
	}
	cur, err := tx.GetRun(id)
	if err != nil {
		return claimed{}, err
	}
	if cur.Status != domain.RunQueued {
		return claimed{}, errNotQueued
	}
	c, _, err := rt.startTx(tx, cur, nil)
	return c, err
}

// createStartedTx creates new run r already running, for a runtime alone
// on its store whose lane for it is free (Submit): one row written once
// instead of created queued and then claimed. created is false when r's
// idempotency key names an earlier run, which is returned unchanged.
// spec is r.Spec decoded (by the caller, off the store's writer).
func (rt *Runtime) createStartedTx(tx domain.Tx, r domain.Run, spec *Spec) (c claimed, created bool, err error) {
	return rt.startTx(tx, unstored(r), spec)
}

// decodeRunSpec reads the part of a run's spec the runtime uses.
func decodeRunSpec(r domain.Run) (Spec, error) {
	var spec Spec
	if len(r.Spec) > 0 {
		if err := json.Unmarshal(r.Spec, &spec); err != nil {
			return Spec{}, fmt.Errorf("run spec: %w", err)
		}
	}
	return spec, nil
}

// startTx records cur as running (created with that status when it is
// new), appends its inbound messages, and reads the budgets above it.
// decoded, when set, is cur.Spec already decoded; nil decodes it here.
func (rt *Runtime) startTx(tx domain.Tx, cur domain.Run, decoded *Spec) (claimed, bool, error) {
	now := rt.now()
	var spec Spec
	if decoded != nil {
		spec = *decoded
	} else {
		var err error
		if spec, err = decodeRunSpec(cur); err != nil {
			return claimed{}, false, err
		}
	}
	s, err := tx.GetSession(cur.SessionKey)
	if err != nil {
		return claimed{}, false, fmt.Errorf("session %s: %w", cur.SessionKey, err)
	}
	if cur.Attempt >= 2 && cur.SessionID != "" && cur.SessionID != s.SessionID {
		return claimed{}, false, errResetSinceFirstAttempt
	}
	cur.SessionID = s.SessionID
	cur, created, err := rt.transition(tx, cur, domain.RunRunning, now)
	if err != nil || !created {
		return claimed{run: cur}, false, err
	}
	var inbound []domain.Message
	// A retried run's first claim stored its inbound message already.
	if spec.UserMessage != nil && cur.Attempt < 2 {
		m := *spec.UserMessage
		m.RunID = cur.ID
		if m.Timestamp == 0 {
			m.Timestamp = now
		}
		msgs := append(prelude(spec.Prelude, cur.ID, now), m)
		inbound, err = tx.AppendMessages(cur.SessionKey, s.SessionID, msgs)
		if err != nil {
			return claimed{}, false, err
		}
	}
	s.UpdatedAt = now
	s.AbortedLastRun = false
	if err := tx.PutSession(s); err != nil {
		return claimed{}, false, err
	}
	budget, err := budgetsTx(tx, s, spec.Payer, now)
	if err != nil {
		return claimed{}, false, err
	}
	return claimed{run: cur, sess: s, inbound: inbound, budget: budget}, true, nil
}

// loop calls the model and its tools until a final answer.
// toolsStarted is set once a tool call is about to execute.
// showStart publishes the run's start (once) before its first event.
// first, when set, is the context a quick turn read and maybe the answer
// of its first model call (quick.go).
func (rt *Runtime) loop(ctx context.Context, run domain.Run, sess domain.Session, inbound []domain.Message, toolsStarted *bool, budget *budgetState, showStart func(), first *firstStep) (runOutcome, []domain.Message) {
	var written []domain.Message
	var history []domain.Message
	cached := false
	// Whatever happens, leave the cache holding exactly the transcript,
	// or nothing for this session.
	defer func() {
		if cached {
			rt.cache.put(run.SessionKey, sess.SessionID, history, rt.opts.ContextMessages)
		} else {
			rt.cache.drop(run.SessionKey)
		}
	}()
	fail := func(err error) (runOutcome, []domain.Message) {
		return outcomeOf(ctx, err), written
	}
	plan, err := rt.opts.Hooks.Prepare(ctx, run, sess)
	if err != nil {
		return fail(err)
	}
	provider, modelID := plan.Provider, plan.ModelRef
	if provider == nil {
		provider, modelID, err = rt.opts.Models.Resolve(plan.ModelRef)
		if err != nil {
			return fail(err)
		}
	}
	if first != nil {
		history = append(first.prior, inbound...)
	} else if h, ok := rt.cache.take(run.SessionKey, sess.SessionID); ok {
		history = append(h, inbound...)
	} else {
		h, err := rt.opts.Store.ReadMessages(ctx, run.SessionKey, domain.MessageQuery{SessionID: sess.SessionID, Limit: rt.opts.ContextMessages})
		if err != nil {
			return fail(err)
		}
		history = h
	}
	cached = true
	if len(history) > rt.opts.ContextMessages {
		history = history[len(history)-rt.opts.ContextMessages:]
	}
	var usage domain.Usage
	for step := 0; ; step++ {
		if step >= rt.opts.MaxSteps {
			out := runOutcome{status: domain.RunError, err: fmt.Sprintf("step limit reached (%d model calls); raise runtime.maxSteps", rt.opts.MaxSteps), usage: usage, model: plan.ModelRef}
			return out, written
		}
		var resp domain.ModelResponse
		if step == 0 && first != nil && first.called {
			// A quick turn called the model before its claim was
			// committed (its steers and budgets were checked then).
			resp, err = first.resp, first.err
		} else {
			// Steer messages sent to this session join the run here (steer.go).
			history, written = rt.takeSteers(ctx, run, history, written, showStart)
			// Budgets are checked before every model call, the first included.
			if exceeded := rt.checkBudget(ctx, run, sess, step, budget); exceeded != nil {
				return runOutcome{status: domain.RunError, err: exceeded.Error(), usage: usage, model: plan.ModelRef}, written
			}
			req := plan.request(run, modelID, history, rt.deltaFunc(run, step, showStart))
			// The call's output is capped at what the budgets leave after
			// its estimated prompt; a prompt that alone exceeds it is not sent.
			if exceeded := capToBudget(&req, budget.tight, plan.ModelRef, rt.opts.Price); exceeded != nil {
				return runOutcome{status: domain.RunError, err: exceeded.Error(), usage: usage, model: plan.ModelRef}, written
			}
			rt.progress.update(run.ID, func(p *domain.Progress) { p.Step, p.Phase = step+1, "model" })
			resp, err = completeTraced(ctx, provider, req, plan.ModelRef)
		}
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			out := outcomeOf(ctx, err)
			out.usage, out.model = usage, plan.ModelRef
			return out, written
		}
		msg := resp.Message
		msg.Role = domain.RoleAssistant
		msg.RunID = run.ID
		if msg.Timestamp == 0 {
			msg.Timestamp = rt.now()
		}
		if msg.Usage != nil {
			usage.Add(*msg.Usage)
		}
		calls := msg.Content.ToolCalls()
		if text := msg.Content.Text(); text != "" || msg.Usage != nil {
			tokens := usage.Input + usage.Output
			rt.progress.update(run.ID, func(p *domain.Progress) {
				p.Tokens = tokens
				if text != "" {
					p.Text = tailText(text, domain.ProgressTextChars)
				}
			})
		}
		if len(calls) == 0 {
			// The final answer is stored in the transaction that records
			// the end of the run (one commit fewer per turn).
			history = append(history, msg)
			out := runOutcome{status: domain.RunOK, reply: msg.Content.Text(), usage: usage, model: plan.ModelRef,
				final: &msg, finalUsage: msg.Usage}
			if msg.StopReason == domain.StopReasonError {
				out.status, out.err = domain.RunError, msg.ErrorMessage
			}
			return out, written
		}
		persisted := redactCalls(msg, rt.opts.Hooks)
		stored, err := rt.append(run, persisted, msg.Usage, plan.ModelRef, budget, showStart)
		if err != nil {
			cached = false
			return fail(err)
		}
		written = append(written, stored)
		history = append(history, stored)
		if len(calls) == 0 {
			out := runOutcome{status: domain.RunOK, reply: msg.Content.Text(), usage: usage, model: plan.ModelRef}
			if msg.StopReason == domain.StopReasonError {
				out.status, out.err = domain.RunError, msg.ErrorMessage
			}
			return out, written
		}
		*toolsStarted = true
		var yielded *domain.ToolResult
		for _, call := range calls {
			tc := plan.ToolContext
			tc.RunID = run.ID
			tc.ToolCallID = call.ID
			rt.progress.update(run.ID, func(p *domain.Progress) { p.Phase = "tool:" + call.Name })
			res := rt.callToolTraced(ctx, tc, call)
			rt.progress.update(run.ID, func(p *domain.Progress) {
				p.LastTool, p.LastToolOutcome = call.Name, "ok"
				if res.IsError {
					p.LastToolOutcome = "error"
				}
			})
			tr := domain.Message{
				Role:       domain.RoleToolResult,
				ToolCallID: call.ID,
				ToolName:   call.Name,
				Content:    domain.BlockContent(res.Content...),
				Details:    res.Details,
				IsError:    domain.Bool(res.IsError),
				RunID:      run.ID,
				Timestamp:  rt.now(),
			}
			stored, err := rt.append(run, tr, nil, "", nil, showStart)
			if err != nil {
				cached = false
				return fail(err)
			}
			written = append(written, stored)
			history = append(history, stored)
			if res.EndTurn && yielded == nil {
				yielded = &res
			}
		}
		if yielded != nil && ctx.Err() == nil {
			// sessions_yield: the turn ends after this step's tool calls.
			return runOutcome{status: domain.RunOK, reply: yielded.EndReply, usage: usage, model: plan.ModelRef}, written
		}
		if ctx.Err() != nil {
			out := outcomeOf(ctx, ctx.Err())
			out.usage, out.model = usage, plan.ModelRef
			return out, written
		}
	}
}

// redactCalls returns msg with tool-call arguments as they may be stored.
func redactCalls(msg domain.Message, h Hooks) domain.Message {
	blocks := append([]domain.Block(nil), msg.Content.Blocks()...)
	for i, b := range blocks {
		if b.Type == domain.BlockToolCall {
			blocks[i].Arguments = h.PersistToolCall(b.Name, b.Arguments)
		}
	}
	msg.Content = domain.BlockContent(blocks...)
	return msg
}

// append stores one message of a running run and updates its session row.
// A model step's usage is charged to the session's account and its
// ancestors' rollups in the same transaction; budget receives the budgets
// of the chain after the charge.
// showStart publishes the run's start (once) before the message's event.
func (rt *Runtime) append(run domain.Run, m domain.Message, usage *domain.Usage, modelRef string, budget *budgetState, showStart func()) (domain.Message, error) {
	var stored domain.Message
	now := rt.now()
	var after budgetState
	err := rt.opts.Store.Update(context.Background(), func(tx domain.Tx) error {
		s, err := tx.GetSession(run.SessionKey)
		if err != nil {
			return err
		}
		out, err := tx.AppendMessages(run.SessionKey, run.SessionID, []domain.Message{m})
		if err != nil {
			return err
		}
		stored = out[0]
		s.UpdatedAt = now
		applyUsage(&s, usage, modelRef, m.Provider)
		if usage != nil {
			if after, err = rt.chargeTx(tx, run, s, usage, modelRef, false); err != nil {
				return err
			}
		}
		return tx.PutSession(s)
	})
	if err == nil && budget != nil && usage != nil {
		budget.bounded = budget.bounded || after.bounded
		budget.exceeded, budget.tight = after.exceeded, after.tight
	}
	if err == nil {
		showStart()
		rt.opts.Emit(domain.Event{Kind: domain.EventMessage, SessionKey: run.SessionKey, Message: &stored, TS: now})
	}
	return stored, err
}

// applyUsage adds a model call's usage to its session row.
func applyUsage(s *domain.Session, usage *domain.Usage, modelRef, provider string) {
	if usage != nil {
		s.InputTokens += usage.Input
		s.OutputTokens += usage.Output
		s.TotalTokens += usage.TotalTokens
		s.ContextTokens = usage.Input + usage.CacheRead
		if usage.Cost != nil {
			s.EstimatedCostUSD += usage.Cost.Total
		}
	}
	if modelRef != "" {
		s.Model = modelRef
		s.ModelProvider = provider
		s.SystemSent = true
	}
}

// outcomeOf classifies why a run stopped with err.
func outcomeOf(ctx context.Context, err error) runOutcome {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errCancelled):
		return runOutcome{status: domain.RunCancelled, err: "cancelled"}
	case errors.Is(cause, errTimeout):
		return runOutcome{status: domain.RunTimeout, err: "run timed out"}
	case errors.Is(cause, errShutdown):
		return runOutcome{status: domain.RunError, err: AbortedError, aborted: true}
	case errors.As(cause, new(*domain.BudgetExceeded)):
		return runOutcome{status: domain.RunError, err: cause.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return runOutcome{status: domain.RunTimeout, err: "run timed out"}
	}
	return runOutcome{status: domain.RunError, err: errorText(err)}
}

// errorText is the error recorded on a run: a coded error's client-safe
// message, else the error itself (provider and model errors are meant to
// be read by the user who configured them).
func errorText(err error) string {
	var e *domain.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
