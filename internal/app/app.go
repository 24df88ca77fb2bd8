// Package app wires switchboard together for one state directory: config,
// store, model registry, transcript mirror and engine. Every command, the
// gateway and the demo build their engine through Open or OpenReadOnly
// (one wiring function), so they all agree on where things live, and only
// one engine at a time writes a state directory.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/tracing"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// Options say where the state lives and how to log.
type Options struct {
	StateDir   string
	ConfigPath string
	Getenv     func(string) string
	Logger     *slog.Logger
	// Owner names who holds the state-dir lock (for the error another
	// process gets), e.g. "gateway" or "cli".
	Owner string
	// Hold records new runs and deliveries without carrying them out: they
	// stay queued for the next start (`--detach`).
	Hold bool
	// OwnWorkOnly runs only the work this process submits, its follow-ups
	// and the runs queued ahead of it on the same sessions; other queued
	// runs stay for a process that serves (the gateway). In-process
	// commands that write set it.
	OwnWorkOnly bool
	// Config, when set, is used instead of loading ConfigPath (the demo
	// builds its own).
	Config *config.Config
	// MaintenanceInterval is how often the engine looks for due outbox
	// work (engine default when zero).
	MaintenanceInterval time.Duration
}

// App is an opened state directory with a running engine.
type App struct {
	Config   *config.Config
	Engine   *engine.Engine
	Store    domain.Store
	StateDir string
	// Channels holds the provider adapters (telegram, discord): their
	// deliveries go through it, and the gateway starts their receiving
	// (StartChannels).
	Channels *channels.Registry
	// Pairing holds dmPolicy "pairing" requests and approvals.
	Pairing *channels.Pairing
	lock    *Lock
	// closeCluster stops the replica coordination (after the engine).
	closeCluster func()
	// tracer exports traces (nil: tracing off); stopped last.
	tracer *tracing.Provider
}

// DBPath is the SQLite store inside a state dir.
func DBPath(stateDir string) string { return filepath.Join(stateDir, "switchboard.db") }

// LoadConfig loads and validates the config file (defaults when missing).
func LoadConfig(path string, getenv func(string) string) (*config.Config, error) {
	cfg, err := config.Load(path, getenv)
	if err != nil {
		// The config is the user's input: a file that does not parse or
		// read is theirs to fix.
		return nil, domain.WithCode(domain.CodeInvalid, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, domain.WithCode(domain.CodeInvalid, fmt.Errorf("config %s:\n%w", path, err))
	}
	return cfg, nil
}

// Open loads config, takes the state-dir lock, opens the store and starts
// the engine (recovering work a previous process left).
func Open(ctx context.Context, opts Options) (*App, error) { return open(ctx, opts, false) }

// Close stops the engine (in-flight runs are recorded as aborted, queued
// work stays for the next start), closes the store and releases the lock.
func (a *App) Close(ctx context.Context) error {
	// Receiving stops first: no new turn arrives while the engine stops.
	err := a.Channels.Stop(ctx)
	err = errors.Join(err, a.Engine.Close(ctx))
	if a.closeCluster != nil {
		a.closeCluster()
	}
	err = errors.Join(err, a.Store.Close())
	err = errors.Join(err, a.tracer.Shutdown(ctx))
	a.lock.Release()
	return err
}

// OpenReadOnly opens a state dir for a command that only reads: the store
// without the lock and an engine that is never started, so it runs
// nothing, recovers nothing and delivers nothing — queued work stays
// queued for a process that serves or writes. It works beside a process
// that holds the state dir (an in-process `switchboard mcp`, another
// command): SQLite's WAL lets it read beside the owner's writes.
func OpenReadOnly(ctx context.Context, opts Options) (*App, error) { return open(ctx, opts, true) }

// open is the one wiring of a state dir that Open, OpenReadOnly and the
// demo share: config (opts.Config, or the file), the state dir, the lock
// (not read-only), the store, the model registry, the transcript mirror
// and the engine, started unless read-only. On an error nothing stays
// open.
func open(ctx context.Context, opts Options, readOnly bool) (_ *App, err error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	cfg := opts.Config
	if cfg == nil {
		if cfg, err = LoadConfig(opts.ConfigPath, opts.Getenv); err != nil {
			return nil, err
		}
	}
	// A fresh state dir reads as empty: the store is created, nothing else.
	if err := os.MkdirAll(opts.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	var undo []func()
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()
	var lock *Lock
	if !readOnly {
		if lock, err = AcquireLock(opts.StateDir, opts.Owner); err != nil {
			return nil, err
		}
		undo = append(undo, lock.Release)
		// Whoever holds the lock is the only gateway there can be: a
		// gateway.json left by a dead one is stale.
		RemoveGatewayInfo(opts.StateDir)
	}
	st, err := OpenStore(ctx, cfg, opts.StateDir)
	if err != nil {
		return nil, err
	}
	undo = append(undo, func() { st.Close() })
	// (Several writing engines may share a PostgreSQL database: they
	// join its replicas below, which claim runs under leases.)
	models, err := model.NewRegistry(cfg, opts.Getenv, &http.Client{})
	if err != nil {
		return nil, err
	}
	cluster, closeCluster, err := openCluster(ctx, cfg, st, opts.Logger, readOnly)
	if err != nil {
		return nil, err
	}
	undo = append(undo, closeCluster)
	var tracer *tracing.Provider
	if !readOnly {
		// Off by default: nothing is created unless tracing.enabled.
		if tracer, err = tracing.Setup(ctx, tracingConfig(cfg), opts.Getenv); err != nil {
			return nil, err
		}
		undo = append(undo, func() { _ = tracer.Shutdown(context.Background()) })
	}
	pairs := channels.NewPairing(PairingPath(opts.StateDir))
	chans, err := newChannels(cfg, opts.Getenv, opts.StateDir, opts.Logger, st, pairs)
	if err != nil {
		return nil, err
	}
	e, err := engine.New(engine.Options{
		Config: cfg, Store: st, Models: models, Mirror: NewMirror(cfg, opts.StateDir),
		StateDir: opts.StateDir, Logger: opts.Logger, MaintenanceInterval: opts.MaintenanceInterval,
		HoldRuns: opts.Hold || readOnly, OwnWorkOnly: opts.OwnWorkOnly, Cluster: cluster, Channels: chans,
		Deliverers: map[domain.OutboxKind]outbox.Deliverer{
			a2a.PushKind: a2a.NewPushDeliverer(st, PushGuard(cfg), opts.Logger),
		},
	})
	if err != nil {
		return nil, err
	}
	if !readOnly {
		if err := e.Start(ctx); err != nil {
			return nil, err
		}
	}
	return &App{Config: cfg, Engine: e, Store: st, StateDir: opts.StateDir, Channels: chans, Pairing: pairs, lock: lock, closeCluster: closeCluster, tracer: tracer}, nil
}

// PushGuard is the outbound-URL guard of A2A push notifications: the
// gateway's A2A policy (a2a.ssrfPolicy), as for remote agents.
func PushGuard(cfg *config.Config) *urlguard.Guard {
	return urlguard.New(urlguard.Policy{AllowPrivateNetwork: cfg.A2A.SSRFPolicy.DangerouslyAllowPrivateNetwork})
}

// tracingConfig is what tracing.Setup reads of cfg.
func tracingConfig(cfg *config.Config) tracing.Config {
	t := cfg.Tracing
	return tracing.Config{Enabled: t.Enabled, Endpoint: t.Endpoint, Headers: t.Headers, SampleRatio: t.SampleRatio}
}
