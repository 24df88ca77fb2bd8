// Package engine is switchboard's facade behind api.Service, the one
// contract every surface calls (the CLI, the WebSocket gateway, the HTTP
// API, MCP and the web UI). It owns the gate (service*.go: scopes,
// binding, requester resolution, idempotency scoping), the chat turn
// (chat.go, deliver.go), the runtime's hooks (hooks.go: what a run sees
// and what follows its end), the event bus (bus.go), and it wires the
// packages that carry the operations out.
//
// Those live in packages named for what they hold: session rows and
// references in package sessions, sessions_send and its exchange in
// package send, sessions_spawn and a sub-agent's end in package spawn,
// rate limits and the loop breaker in package limits, the stored run spec
// in package runspec, idempotency keys in package idempotency, the live
// configuration in package reload; who may see what and the read models
// in package query, spend bounds in package budget, where a reply goes in
// package delivery, calls held for an operator in package approvals,
// what the audit log records and shows in package audit/auditor; runs
// themselves in package runs, and package outbox delivers what a
// transaction enqueued.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
	"github.com/switchboard-go/switchboard/internal/approvals"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/audit/auditor"
	"github.com/switchboard-go/switchboard/internal/budget"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/limits"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/reload"
	"github.com/switchboard-go/switchboard/internal/replica"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/send"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
	"github.com/switchboard-go/switchboard/internal/sessions"
	"github.com/switchboard-go/switchboard/internal/spawn"
)

// Models is what the engine needs of the model registry.
type Models interface {
	runs.ModelResolver
	// ValidateThinking errors when the model does not accept the level.
	ValidateThinking(ref, level string) error
}

// Mirror is the append-only JSONL transcript mirror.
type Mirror interface {
	runs.Mirror
	Path(agentID, sessionID string) string
	Remove(agentID, sessionID string) error
	Archive(agentID, sessionID string, ts time.Time) error
}

// Options configure an Engine. Config, Store and Models are required.
type Options struct {
	Config   *config.Config
	Store    domain.Store
	Models   Models
	Mirror   Mirror
	StateDir string
	Logger   *slog.Logger
	Now      func() time.Time
	NewID    func() string
	// HTTPClient delivers to webhook channels.
	HTTPClient *http.Client
	// MaintenanceInterval is how often due archives and outbox retries are
	// looked for (default 1s).
	MaintenanceInterval time.Duration
	// HoldDeliveries keeps the outbox undelivered (items stay pending for
	// the next engine): crash tests use it to stop between a run's end and
	// its delivery.
	HoldDeliveries bool
	// HoldRuns records submitted runs without executing them (and holds
	// deliveries): everything stays queued for the next engine that starts
	// without it. `--detach` in-process uses it.
	HoldRuns bool
	// OwnWorkOnly carries out only this process's runs, their follow-ups
	// and the runs queued ahead of them on their sessions; other queued
	// runs wait for a process that serves (runs.Options.OwnWorkOnly).
	// In-process commands that write use it; Idle then waits for that
	// work only.
	OwnWorkOnly bool
	// QuickGrace is runs.Options.QuickGrace (0: the default).
	QuickGrace time.Duration
	// Cluster coordinates this engine with the other replicas on its
	// store (nil: alone on it). When it also takes outbox items
	// (outbox.Taker), every item is delivered by one replica.
	Cluster replica.Cluster
	// A2AHTTPClient carries requests to the remote A2A agents of
	// a2a.remotes (default: a client without a timeout; each send's run
	// bounds its call).
	A2AHTTPClient *http.Client
	// Channels delivers outbox items of provider channels (telegram,
	// discord): the gateway's channels.Registry. Nil: none.
	Channels ChannelDeliverers
	// Deliverers deliver outbox items of kinds the engine does not know
	// (A2A push notifications), by kind.
	Deliverers map[domain.OutboxKind]outbox.Deliverer
}

// ChannelDeliverers hands out the outbox deliverer of a provider channel.
type ChannelDeliverers interface {
	Deliverer(channel string) (outbox.Deliverer, bool)
}

// Engine is switchboard's core. Build it with New, then Start; Close stops
// it and waits for everything it started.
type Engine struct {
	cfg        *config.Config
	live       *reload.Live // cfg with a Reload's live keys
	store      domain.Store
	models     Models
	mirror     Mirror
	keys       sessionkey.Resolver
	rt         *runs.Runtime
	log        *slog.Logger
	now        func() time.Time
	newID      func() string
	dir        string
	bus        *bus
	deliveries *outbox.Worker
	guards     *limits.Guards // rate limits and the loop breaker
	remotes    *remote.Client // A2A client of a2a.remotes (remote.go)
	budgets    budget.Ledger
	reads      query.Reader
	sessions   *sessions.Book
	spawner    *spawn.Spawner
	sender     *send.Sender
	channels   ChannelDeliverers
	audit      *audit.Log       // the audit log
	auditor    *auditor.Auditor // what is recorded in it and read of it (audit.go)

	approvals *approvals.Approver // held calls and their decisions (approvals.go)

	started bool
	hold    bool
	swept   int // attachment folders removed at start
}

// New builds an engine.
func New(opts Options) (*Engine, error) {
	if opts.Config == nil || opts.Store == nil || opts.Models == nil {
		return nil, errors.New("engine: Config, Store and Models are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	// Run ids grow with time (domain.NewTimeID), unless the caller picks
	// every id itself.
	runID := opts.NewID
	if runID == nil {
		runID = domain.NewTimeID
	}
	if opts.NewID == nil {
		opts.NewID = domain.NewID
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.MaintenanceInterval <= 0 {
		opts.MaintenanceInterval = time.Second
	}
	cfg := opts.Config
	e := &Engine{
		cfg:    cfg,
		store:  opts.Store,
		models: opts.Models,
		mirror: opts.Mirror,
		keys: sessionkey.Resolver{
			MainKey:        cfg.MainKey(),
			DefaultAgentID: cfg.DefaultAgentID(),
			GlobalScope:    cfg.Session.Scope == "global",
		},
		log:      opts.Logger,
		now:      opts.Now,
		newID:    opts.NewID,
		dir:      opts.StateDir,
		bus:      newBus(opts.Cluster),
		hold:     opts.HoldDeliveries || opts.HoldRuns,
		channels: opts.Channels,
	}
	e.live = reload.New(cfg, func(ref string) error { _, _, err := opts.Models.Resolve(ref); return err })
	e.budgets = budget.Ledger{Store: opts.Store, Config: e.conf, Now: opts.Now,
		Progress: func(key string) (domain.Progress, bool) { return e.rt.SessionProgress(key) }}
	e.reads = query.Reader{Store: opts.Store, Keys: e.keys, Config: e.conf, Now: opts.Now}
	var sm sessions.Mirror
	if opts.Mirror != nil {
		sm = opts.Mirror
	}
	e.sessions = sessions.NewBook(sessions.Options{Store: opts.Store, Keys: e.keys, Config: cfg, Live: e.conf, Models: opts.Models,
		Mirror: sm, Reads: e.reads, Stop: e.StopSession, Publish: e.bus.publish, Log: opts.Logger, Now: opts.Now, NewID: opts.NewID})
	e.audit = audit.NewLog(opts.Store, opts.Now, func() bool { return e.conf().Audit.On() })
	e.auditor = auditor.New(auditor.Options{Log: e.audit, Config: e.conf, AgentOf: e.keys.AgentOf, Logger: opts.Logger})
	e.approvals = e.newApprover()
	e.guards = limits.New(limits.Options{Config: cfg, Store: opts.Store, Keys: e.keys, Publish: e.bus.publish,
		Poke: func() { e.deliveries.Poke() }, Paused: e.auditor.Pause, AskResume: e.approvals.AskResume, Log: opts.Logger, Now: opts.Now, NewID: opts.NewID})
	taker, _ := opts.Cluster.(outbox.Taker)
	e.remotes = remote.New(remote.Options{HTTP: opts.A2AHTTPClient})
	webhooks := map[string]string{}
	for name, ch := range e.cfg.Channels.Webhook {
		webhooks[name] = ch.URL
	}
	channels := outbox.Channels{Check: e.checkSendPolicy, Webhooks: webhooks, Client: opts.HTTPClient}
	if e.channels != nil {
		channels.External = e.channels.Deliverer
	}
	hosted := map[domain.OutboxKind]outbox.Deliverer{limits.OutboxHeldSend: outbox.DelivererFunc(e.deliverHeldSend),
		approvals.OutboxKind: outbox.DelivererFunc(e.approvals.Deliver)}
	for kind, d := range opts.Deliverers {
		hosted[kind] = d
	}
	ob, err := outbox.Wire(outbox.Wiring{
		Store: e.store, Channels: channels, SubagentAnnounce: outbox.DelivererFunc(func(ctx context.Context, it domain.OutboxItem) error { return e.spawner.DeliverAnnounce(ctx, it) }),
		Hosted:   hosted,
		Archived: func(key string) { e.publishSession(key, "archived") },
		Publish:  e.bus.publish, Logger: e.log, Now: e.now, Interval: opts.MaintenanceInterval, Taker: taker,
	})
	if err != nil {
		return nil, err
	}
	e.deliveries = ob
	var mirror runs.Mirror
	if opts.Mirror != nil {
		mirror = opts.Mirror
	}
	rt, err := runs.New(runs.Options{
		Store:    opts.Store,
		Models:   opts.Models,
		Hooks:    hooks{e},
		Mirror:   mirror,
		Emit:     e.bus.publish,
		Now:      opts.Now,
		NewID:    runID,
		Logger:   opts.Logger,
		MaxSteps: cfg.Runtime.MaxSteps,
		Price:    e.budgets.Price,
		Hold:     opts.HoldRuns,
		Lanes: map[domain.Lane]int{
			domain.LaneMain:     cfg.Runtime.Lanes.Main,
			domain.LaneNested:   cfg.Runtime.Lanes.Nested,
			domain.LaneSubagent: cfg.Runtime.Lanes.Subagent,
		},
		OwnWorkOnly: opts.OwnWorkOnly,
		Cluster:     opts.Cluster,
		QuickGrace:  opts.QuickGrace,
		Audit:       e.auditor.Run,
	})
	if err != nil {
		return nil, err
	}
	e.rt = rt
	e.spawner = spawn.New(spawn.Options{Store: opts.Store, Keys: e.keys, Config: cfg, Live: e.conf, Models: opts.Models,
		Sessions: e.sessions, Budgets: e.budgets, Runs: rt, Admit: e.guards.Admit, Payer: e.payerFor, Published: e.publishSession,
		StateDir: opts.StateDir, Log: opts.Logger, Now: opts.Now, NewID: opts.NewID})
	e.sender = send.New(send.Options{Store: opts.Store, Keys: e.keys, Config: cfg, Live: e.conf, Reads: e.reads,
		Sessions: e.sessions, Guards: e.guards, Runs: rt, Payer: e.payerFor, Published: e.publishSession,
		Log: opts.Logger, Now: opts.Now})
	return e, nil
}

// Config returns the engine's configuration in effect (read-only; a
// Reload's live keys included).
func (e *Engine) Config() *config.Config { return e.conf() }

// conf is the configuration in effect (package reload).
func (e *Engine) conf() *config.Config { return e.live.Config() }

// Reload applies the live keys of next (a validated configuration) to the
// running engine (reload.Live.Apply): it returns the live keys that
// changed and the changed keys that need a restart.
func (e *Engine) Reload(next *config.Config) (applied, needRestart []string, err error) {
	applied, needRestart, err = e.live.Apply(next)
	if err == nil {
		e.auditor.Reload(applied, needRestart)
	}
	return applied, needRestart, err
}

// LiveKeys lists the configuration keys Reload applies to a running
// engine (the rest needs a restart).
func LiveKeys() []string { return reload.Keys() }

// Store returns the engine's store (for read-only surfaces such as metrics).
func (e *Engine) Store() domain.Store { return e.store }

// Start recovers interrupted work and starts the maintenance loop
// (archives, outbox delivery and retries).
func (e *Engine) Start(ctx context.Context) error {
	if e.started {
		return errors.New("engine: already started")
	}
	e.started = true
	// Before any run can spawn: folders of spawns that never committed.
	swept, err := e.sweepAttachments(ctx)
	if err != nil {
		return fmt.Errorf("engine: start: %w", err)
	}
	e.swept = swept
	if err := e.guards.Restore(ctx); err != nil {
		return fmt.Errorf("engine: start: %w", err)
	}
	if err := e.rt.Start(ctx); err != nil {
		return fmt.Errorf("engine: start: %w", err)
	}
	if !e.hold {
		if err := e.deliveries.Start(); err != nil {
			return fmt.Errorf("engine: start: %w", err)
		}
	}
	e.auditor.Start(ctx)
	return nil
}

// Close stops the engine: in-flight runs are recorded as aborted, queued
// runs and undelivered outbox items stay for the next start.
func (e *Engine) Close(ctx context.Context) error {
	if !e.started {
		return e.rt.Close(ctx)
	}
	e.auditor.Stop()
	return errors.Join(e.rt.Close(ctx), e.deliveries.Stop(ctx))
}

// Stats reports queue depth and active runs for metrics.
func (e *Engine) Stats() (queued, active int) { return e.rt.QueueDepth(), e.rt.ActiveRuns() }

// OutboxPasses counts the outbox worker's completed passes (metrics).
func (e *Engine) OutboxPasses() uint64 { return e.deliveries.Passes() }

// poke wakes the outbox worker early (new outbox work).
func (e *Engine) poke() { e.deliveries.Poke() }

// PokeOutbox makes the outbox worker look for due items now: a surface
// that queued items itself (A2A push notifications) need not wait for
// the worker's next pass.
func (e *Engine) PokeOutbox() { e.deliveries.Poke() }

func (e *Engine) nowMs() int64 { return e.now().UnixMilli() }

func orDefault[T ~string](s, def T) T {
	if s == "" {
		return def
	}
	return s
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
