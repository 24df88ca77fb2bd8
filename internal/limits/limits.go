// Package limits is what stops runaway agents: the rate limits per
// session and per agent, and the loop breaker of the agent-to-agent
// message graph, whose held messages wait durably in the outbox until an
// operator resumes their edge.
package limits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/loopguard"
	"github.com/switchboard-go/switchboard/internal/ratelimit"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// OutboxHeldSend is an agent-to-agent message held on a paused edge: an
// outbox item that is not due until the edge is resumed, so it survives
// a restart and is sent, in order, once an operator resumes the edge.
const OutboxHeldSend domain.OutboxKind = "held_send"

// heldForever is how far ahead a held message's attempt is set: it is
// made due by a resume, never by the clock.
const heldForever = 100 * 365 * 24 * time.Hour

// HeldSend is the payload of an OutboxHeldSend item.
type HeldSend struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	RunID   string `json:"runId,omitempty"`
}

// Options are the dependencies of Guards; all are required.
type Options struct {
	Config *config.Config
	Store  domain.Store
	Keys   sessionkey.Resolver
	// Publish tells live clients an edge was paused; Poke wakes the
	// outbox worker when held messages become due.
	Publish func(domain.Event)
	Poke    func()
	// Paused, when set, records an edge's pause inside the transaction
	// that holds its first message (the audit log).
	Paused func(tx domain.Tx, runID, from, to, reason string) error
	// AskResume, when set, is told of each new pause after it is durable
	// (an operator may be asked to resume the edge: approvals).
	AskResume func(ctx context.Context, from, to, reason string)
	Log       *slog.Logger
	Now       func() time.Time
	NewID     func() string
}

// Guards are the limits that stop runaway agents.
type Guards struct {
	rate    *ratelimit.Limiter
	loops   *loopguard.Breaker
	store   domain.Store
	keys    sessionkey.Resolver
	publish func(domain.Event)
	poke    func()
	paused  func(tx domain.Tx, runID, from, to, reason string) error
	ask     func(ctx context.Context, from, to, reason string)
	log     *slog.Logger
	now     func() time.Time
	newID   func() string
}

// New builds the guards of a configuration.
func New(o Options) *Guards {
	cfg, now := o.Config, o.Now
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
	return &Guards{rate: ratelimit.New(limits, now), loops: loopguard.New(loopguard.Limits{Max: lb.MaxMessages, Window: window}, now),
		store: o.Store, keys: o.Keys, publish: o.Publish, poke: o.Poke, paused: o.Paused, ask: o.AskResume, log: o.Log, now: now, newID: o.NewID}
}

func (g *Guards) nowMs() int64 { return g.now().UnixMilli() }

// Admit takes one unit of work from the buckets of each session in keys
// and of each of their agents; over a limit it is a retryable refusal
// naming the limit.
func (g *Guards) Admit(keys ...string) error {
	// keys are a turn's one or two sessions: the ones already taken from
	// are remembered in arrays on the stack, so a turn allocates nothing
	// here.
	var sessionsArr, agentsArr [4]string
	sessions, agents := sessionsArr[:0], agentsArr[:0]
	for _, k := range keys {
		if k == "" || slices.Contains(sessions, k) {
			continue
		}
		sessions = append(sessions, k)
		if err := limitErr(g.rate.Allow(ratelimit.ScopeSession, k), "session"); err != nil {
			return err
		}
		agent := g.keys.AgentOf(k)
		if agent == "" || slices.Contains(agents, agent) {
			continue
		}
		agents = append(agents, agent)
		if err := limitErr(g.rate.Allow(ratelimit.ScopeAgent, agent), "agent"); err != nil {
			return err
		}
	}
	return nil
}

func limitErr(err error, scope string) error {
	if err == nil {
		return nil
	}
	var ex *ratelimit.Exceeded
	if errors.As(err, &ex) {
		return domain.Errorf(domain.CodeUnavailable, "%s (gateway.limits.rateLimit.%s)", ex.Error(), scope)
	}
	return err
}

// HoldOnLoop counts an agent-to-agent send of run runID ("" outside a
// run) an agent-to-agent send on the edge from → to; when
// the edge is paused, or this send trips the breaker, the message is
// held (durably) and the answer says so.
func (g *Guards) HoldOnLoop(ctx context.Context, runID, from, to, display string, chain []string, message string) (api.SendResult, bool, error) {
	if runID == "" || !g.loops.On() {
		if _, paused := g.loops.Paused(loopguard.Edge{From: from, To: to}); !paused {
			return api.SendResult{}, false, nil
		}
	}
	edge := loopguard.Edge{From: from, To: to}
	_, wasPaused := g.loops.Paused(edge)
	p, held := g.loops.Note(edge, chain)
	if !held {
		return api.SendResult{}, false, nil
	}
	payload, err := json.Marshal(HeldSend{From: from, To: to, Message: message, Reason: p.Reason, RunID: runID})
	if err != nil {
		return api.SendResult{}, false, err
	}
	now := g.nowMs()
	err = g.store.Update(ctx, func(tx domain.Tx) error {
		_, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "held:" + g.newID(), Kind: OutboxHeldSend, SessionKey: to,
			RunID: runID, Payload: payload, Status: domain.OutboxPending, NextAttemptAt: now + heldForever.Milliseconds(), CreatedAt: now})
		if err != nil || wasPaused || g.paused == nil {
			return err
		}
		return g.paused(tx, runID, from, to, p.Reason)
	})
	if err != nil {
		return api.SendResult{}, false, err
	}
	if !wasPaused {
		g.log.Warn("loop breaker paused an edge", "from", from, "to", to, "reason", p.Reason)
		g.publish(domain.Event{Kind: domain.EventLoopPaused, SessionKey: from, Reason: p.Reason, TS: now})
		if g.ask != nil {
			g.ask(ctx, from, to, p.Reason)
		}
	}
	msg := fmt.Sprintf("loop breaker: %s; the message is held until an operator resumes the edge (switchboard loops resume %s %s)", p.Reason, from, to)
	return api.SendResult{Status: "paused", Error: msg, SessionKey: display}, true, nil
}

// Restore pauses again the edges that hold messages (a restart).
func (g *Guards) Restore(ctx context.Context) error {
	items, err := g.store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}})
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Kind != OutboxHeldSend || it.NextAttemptAt <= g.nowMs() {
			continue
		}
		var h HeldSend
		if json.Unmarshal(it.Payload, &h) == nil {
			g.loops.Restore(loopguard.Pause{Edge: loopguard.Edge{From: h.From, To: h.To}, Reason: h.Reason, Since: it.CreatedAt})
		}
	}
	return nil
}

// Pauses lists the paused edges of the message graph.
func (g *Guards) Pauses() []api.LoopPause {
	out := []api.LoopPause{}
	for _, lp := range g.loops.List() {
		out = append(out, api.LoopPause{From: lp.From, To: lp.To, Reason: lp.Reason, Since: lp.Since})
	}
	return out
}

// Resume releases the held messages of the edge from → to.
func (g *Guards) Resume(ctx context.Context, from, to string) (int, error) {
	if from == "" || to == "" {
		return 0, domain.Invalid("from and to are required (the paused edge's session keys)")
	}
	paused := g.loops.Resume(loopguard.Edge{From: from, To: to})
	items, err := g.store.ListOutbox(ctx, domain.OutboxQuery{Statuses: []domain.OutboxStatus{domain.OutboxPending}, SessionKey: to})
	if err != nil {
		return 0, err
	}
	now, n := g.nowMs(), 0
	for _, it := range items {
		var h HeldSend
		// An item already due was released by an earlier resume and may be
		// in a delivery's hands: rewriting it could send it twice.
		if it.Kind != OutboxHeldSend || it.NextAttemptAt <= now || json.Unmarshal(it.Payload, &h) != nil || h.From != from {
			continue
		}
		it.NextAttemptAt = now
		if err := g.store.Update(ctx, func(tx domain.Tx) error { return tx.PutOutbox(it) }); err != nil {
			return n, err
		}
		n++
	}
	if !paused && n == 0 {
		return 0, domain.Errorf(domain.CodeNotFound, "edge %s → %s is not paused", from, to)
	}
	g.poke()
	return n, nil
}
