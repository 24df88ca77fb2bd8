// Package engine is the one in-process API every surface calls: the CLI,
// the WebSocket gateway, the HTTP API, MCP and the web UI. It owns the
// runtime, applies policy and visibility, implements the session tools and
// drives the durable follow-up work (reply-back loops, announces, sub-agent
// lifecycles) through runs and the outbox.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runtime"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// Models is what the engine needs of the model registry.
type Models interface {
	runtime.ModelResolver
	// ValidateThinking errors when the model does not accept the level.
	ValidateThinking(ref, level string) error
}

// Mirror is the append-only JSONL transcript mirror.
type Mirror interface {
	runtime.Mirror
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
}

// Engine is switchboard's core. Build it with New, then Start; Close stops
// it and waits for everything it started.
type Engine struct {
	cfg    *config.Config
	store  domain.Store
	models Models
	mirror Mirror
	keys   sessionkey.Resolver
	rt     *runtime.Runtime
	log    *slog.Logger
	now    func() time.Time
	newID  func() string
	hc     *http.Client
	dir    string
	bus    *bus

	interval time.Duration
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	wake     chan struct{}
	started  bool
	hold     bool
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
		hc:       opts.HTTPClient,
		dir:      opts.StateDir,
		bus:      newBus(),
		interval: opts.MaintenanceInterval,
		wake:     make(chan struct{}, 1),
		hold:     opts.HoldDeliveries || opts.HoldRuns,
	}
	var mirror runtime.Mirror
	if opts.Mirror != nil {
		mirror = opts.Mirror
	}
	rt, err := runtime.New(runtime.Options{
		Store:    opts.Store,
		Models:   opts.Models,
		Hooks:    hooks{e},
		Mirror:   mirror,
		Emit:     e.bus.publish,
		Now:      opts.Now,
		NewID:    opts.NewID,
		Logger:   opts.Logger,
		MaxSteps: cfg.Runtime.MaxSteps,
		Hold:     opts.HoldRuns,
		Lanes: map[string]int{
			domain.LaneMain:     cfg.Runtime.Lanes.Main,
			domain.LaneNested:   cfg.Runtime.Lanes.Nested,
			domain.LaneSubagent: cfg.Runtime.Lanes.Subagent,
		},
	})
	if err != nil {
		return nil, err
	}
	e.rt = rt
	return e, nil
}

// Config returns the engine's configuration (read-only).
func (e *Engine) Config() *config.Config { return e.cfg }

// Store returns the engine's store (for read-only surfaces such as metrics).
func (e *Engine) Store() domain.Store { return e.store }

// Start recovers interrupted work and starts the maintenance loop
// (archives, outbox delivery and retries).
func (e *Engine) Start(ctx context.Context) error {
	if e.started {
		return errors.New("engine: already started")
	}
	e.started = true
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if err := e.rt.Start(ctx); err != nil {
		return fmt.Errorf("engine: start: %w", err)
	}
	if !e.hold {
		e.wg.Add(1)
		go e.maintain()
	}
	return nil
}

// Close stops the engine: in-flight runs are recorded as aborted, queued
// runs and undelivered outbox items stay for the next start.
func (e *Engine) Close(ctx context.Context) error {
	if !e.started {
		return e.rt.Close(ctx)
	}
	err := e.rt.Close(ctx)
	e.cancel()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return errors.Join(err, ctx.Err())
	}
	return err
}

// Stats reports queue depth and active runs for metrics.
func (e *Engine) Stats() (queued, active int) { return e.rt.QueueDepth(), e.rt.ActiveRuns() }

// poke wakes the maintenance loop early (new outbox work).
func (e *Engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *Engine) nowMs() int64 { return e.now().UnixMilli() }
