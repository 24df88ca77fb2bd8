package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/loopguard"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/ratelimit"
)

// outboxHeldSend is an agent-to-agent message held on a paused edge: an
// outbox item that is not due until the edge is resumed, so it survives
// a restart and is sent, in order, once an operator resumes the edge.
const outboxHeldSend domain.OutboxKind = "held_send"

// heldForever is how far ahead a held message's attempt is set: it is
// made due by a resume, never by the clock.
const heldForever = 100 * 365 * 24 * time.Hour

// heldSend is the payload of an outboxHeldSend item.
type heldSend struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	RunID   string `json:"runId,omitempty"`
}

// guards are the limits that stop runaway agents.
type guards struct {
	rate  *ratelimit.Limiter
	loops *loopguard.Breaker
}

func newGuards(cfg *config.Config, now func() time.Time) *guards {
	rl := cfg.Gateway.Limits.RateLimit
	limits := map[ratelimit.Scope]ratelimit.Limit{}
	if rl.Session.RequestsPerSecond > 0 {
		limits[ratelimit.ScopeSession] = ratelimit.Limit{PerSecond: rl.Session.RequestsPerSecond, Burst: rl.Session.BurstOf()}
	}
	if rl.Agent.RequestsPerSecond > 0 {
		limits[ratelimit.ScopeAgent] = ratelimit.Limit{PerSecond: rl.Agent.RequestsPerSecond, Burst: rl.Agent.BurstOf()}
	}
	lb := cfg.Session.AgentToAgent.LoopBreaker
	window := time.Duration(lb.WindowSeconds) * time.Second
	if window <= 0 {
		window = config.DefaultLoopWindowSeconds * time.Second
	}
	return &guards{rate: ratelimit.New(limits, now), loops: loopguard.New(loopguard.Limits{Max: lb.MaxMessages, Window: window}, now)}
}

// admit takes one unit of work from the buckets of each session in keys
// and of each of their agents; over a limit it is a retryable refusal
// naming the limit.
func (e *Engine) admit(keys ...string) error {
	seen := map[string]bool{}
	for _, k := range keys {
		if k == "" || seen["s"+k] {
			continue
		}
		seen["s"+k] = true
		if err := e.limitErr(e.guards.rate.Allow(ratelimit.ScopeSession, k), "session"); err != nil {
			return err
		}
		agent := e.keys.AgentOf(k)
		if agent == "" || seen["a"+agent] {
			continue
		}
		seen["a"+agent] = true
		if err := e.limitErr(e.guards.rate.Allow(ratelimit.ScopeAgent, agent), "agent"); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) limitErr(err error, scope string) error {
	var ex *ratelimit.Exceeded
	if errors.As(err, &ex) {
		return domain.Errorf(domain.CodeUnavailable, "%s (gateway.limits.rateLimit.%s)", ex.Error(), scope)
	}
	return err
}

// holdOnLoop counts an agent-to-agent send on the edge from → to; when
// the edge is paused, or this send trips the breaker, the message is
// held (durably) and the answer says so.
func (e *Engine) holdOnLoop(ctx context.Context, req Requester, from, to, display string, chain []string, message string) (api.SendResult, bool, error) {
	if req.RunID == "" || !e.guards.loops.On() {
		if _, paused := e.guards.loops.Paused(loopguard.Edge{From: from, To: to}); !paused {
			return api.SendResult{}, false, nil
		}
	}
	edge := loopguard.Edge{From: from, To: to}
	_, wasPaused := e.guards.loops.Paused(edge)
	p, held := e.guards.loops.Note(edge, chain)
	if !held {
		return api.SendResult{}, false, nil
	}
	payload, err := json.Marshal(heldSend{From: from, To: to, Message: message, Reason: p.Reason, RunID: req.RunID})
	if err != nil {
		return api.SendResult{}, false, err
	}
	now := e.nowMs()
	err = e.store.Update(ctx, func(tx domain.Tx) error {
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "held:" + e.newID(), Kind: outboxHeldSend, SessionKey: to,
			RunID: req.RunID, Payload: payload, Status: domain.OutboxPending, NextAttemptAt: now + heldForever.Milliseconds(), CreatedAt: now})
		return err
	})
	if err != nil {
		return api.SendResult{}, false, err
	}
	if !wasPaused {
		e.log.Warn("loop breaker paused an edge", "from", from, "to", to, "reason", p.Reason)
		e.bus.publish(domain.Event{Kind: domain.EventLoopPaused, SessionKey: from, Reason: p.Reason, TS: now})
		e.askLoopResume(ctx, from, to, p.Reason)
	}
	msg := fmt.Sprintf("loop breaker: %s; the message is held until an operator resumes the edge (switchboard loops resume %s %s)", p.Reason, from, to)
	return api.SendResult{Status: "paused", Error: msg, SessionKey: display}, true, nil
}

// restorePauses pauses again the edges that hold messages (a restart).
func (e *Engine) restorePauses(ctx context.Context) error {
	items, err := e.store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}})
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Kind != outboxHeldSend || it.NextAttemptAt <= e.nowMs() {
			continue
		}
		var h heldSend
		if json.Unmarshal(it.Payload, &h) == nil {
			e.guards.loops.Restore(loopguard.Pause{Edge: loopguard.Edge{From: h.From, To: h.To}, Reason: h.Reason, Since: it.CreatedAt})
		}
	}
	return nil
}

// deliverHeldSend sends a held message once its edge is resumed: from
// outside a run (the requester's tool call has long returned), so it
// starts no reply-back turns.
func (e *Engine) deliverHeldSend(ctx context.Context, it domain.OutboxItem) error {
	var h heldSend
	if err := json.Unmarshal(it.Payload, &h); err != nil {
		return fmt.Errorf("%w: held message does not decode: %v", outbox.ErrPermanent, err)
	}
	zero := 0
	res, err := e.send(ctx, Requester{SessionKey: h.From, resolved: h.From, IdempotencyKey: it.IdempotencyKey, scoped: true},
		api.SendRequest{SessionKey: h.To, Message: h.Message, TimeoutSeconds: &zero})
	if err != nil {
		return err
	}
	if res.Status == "error" || res.Status == "forbidden" {
		return fmt.Errorf("%w: held message from %s to %s: %s", outbox.ErrPermanent, h.From, h.To, res.Error)
	}
	return nil
}

// LoopsList lists the paused edges of the message graph (operator only).
func (e *Engine) LoopsList(ctx context.Context, p api.Principal) (api.LoopsResult, error) {
	if _, err := e.enter(p, api.OpLoopsList); err != nil {
		return api.LoopsResult{}, err
	}
	if !e.started {
		// A read-only engine (a CLI command beside no gateway): the held
		// messages in the store say which edges are paused.
		if err := e.restorePauses(ctx); err != nil {
			return api.LoopsResult{}, err
		}
	}
	out := api.LoopsResult{Pauses: []api.LoopPause{}}
	for _, lp := range e.guards.loops.List() {
		out.Pauses = append(out.Pauses, api.LoopPause{From: lp.From, To: lp.To, Reason: lp.Reason, Since: lp.Since})
	}
	return out, nil
}

// LoopResume lifts the pause of an edge and sends the messages it held,
// oldest first (operator only).
func (e *Engine) LoopResume(ctx context.Context, p api.Principal, req api.LoopResumeRequest) (api.LoopResumeResult, error) {
	if _, err := e.enter(p, api.OpLoopsResume); err != nil {
		return api.LoopResumeResult{}, err
	}
	n, err := e.loopResume(ctx, strings.TrimSpace(req.From), strings.TrimSpace(req.To))
	return api.LoopResumeResult{Released: n}, err
}

// loopResume releases the held messages of the edge from → to.
func (e *Engine) loopResume(ctx context.Context, from, to string) (int, error) {
	if from == "" || to == "" {
		return 0, domain.Invalid("from and to are required (the paused edge's session keys)")
	}
	paused := e.guards.loops.Resume(loopguard.Edge{From: from, To: to})
	items, err := e.store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}, SessionKey: to})
	if err != nil {
		return 0, err
	}
	now, n := e.nowMs(), 0
	for _, it := range items {
		var h heldSend
		if it.Kind != outboxHeldSend || json.Unmarshal(it.Payload, &h) != nil || h.From != from {
			continue
		}
		it.NextAttemptAt = now
		if err := e.store.Update(ctx, func(tx domain.Tx) error { return tx.PutOutbox(it) }); err != nil {
			return n, err
		}
		n++
	}
	if !paused && n == 0 {
		return 0, domain.Errorf(domain.CodeNotFound, "edge %s → %s is not paused", from, to)
	}
	e.deliveries.Poke()
	return n, nil
}

var _ api.Operators = (*Engine)(nil)
