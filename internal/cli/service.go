package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// service is what commands call: one api.Service — the engine of the
// state dir in-process, or the running gateway through internal/client —
// and what the CLI needs beyond it.
type service struct {
	api.Service
	env *env
	// keys prints the requester's main session (which tool-shaped results
	// show as `main`) as its canonical key.
	keys sessionkey.Resolver
	// remote: calls go to a gateway, whose work goes on after the command.
	remote bool

	// In-process only.
	app *app.App
	eng *engine.Engine
	// readOnly: the engine was opened without starting the runtime (a
	// command that only reads); nothing runs, so nothing settles.
	readOnly bool
}

// Remote reports whether calls go to a gateway (whose work goes on after
// the command exits).
func (s *service) Remote() bool { return s.remote }

// closeTimeout bounds the engine's shutdown after the work settled (or
// after an interrupt).
const closeTimeout = 10 * time.Second

// Close ends the service. In-process, unless --detach or read-only, it
// first waits for the work in hand to settle; an interrupt while settling
// stops at once, and the work in flight follows the crash rule
// (interruptedWork).
func (s *service) Close(ctx context.Context) error {
	if s.app == nil {
		return nil
	}
	var settleErr error
	if !s.env.detach && !s.readOnly {
		settleErr = settle(ctx, s.eng, s.env.progress())
		if errors.Is(settleErr, context.Canceled) {
			settleErr = &interruptedErr{err: settleErr}
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	return errors.Join(settleErr, s.app.Close(cctx))
}

// principal is who CLI commands act as: the operator, or the operator
// acting as session as (--as), where visibility applies.
func principal(as string) api.Principal {
	if as == "" {
		return api.Operator()
	}
	return api.Operator().ActingAs(as)
}

// canonical returns a key of a tool-shaped result as its canonical key:
// those results show the requester's own main session as `main` (as the
// reference does); the CLI, like the HTTP API and the gateway's methods,
// always prints agent:<id>:<rest>, in tables and in --json alike.
func (s *service) canonical(key, as string) string {
	if key != "main" {
		return key
	}
	agent := s.keys.DefaultAgentID
	if as != "" {
		if k, err := s.keys.Canonical(as, ""); err == nil {
			agent = s.keys.AgentOf(k)
		}
	}
	return s.keys.MainSessionKey(agent)
}

// canonicalRows rewrites the keys of session rows in place.
func (s *service) canonicalRows(rows []api.SessionRow, as string) {
	for i := range rows {
		r := &rows[i]
		r.Key = s.canonical(r.Key, as)
		r.SpawnedBy = s.canonical(r.SpawnedBy, as)
		r.ParentSessionKey = s.canonical(r.ParentSessionKey, as)
	}
}

// access says what a command does with the state dir.
type access bool

const (
	// reads: the command only reads; in-process it opens the store without
	// starting the runtime, so it runs no queued work.
	reads access = false
	// writes: the command changes something; in-process it runs the
	// engine and lets the work settle before it exits.
	writes access = true
)

// open returns the service for this command: the gateway of the state dir
// when gateway.json names a live one, else the engine in-process.
func (e *env) open(mode access) (*service, error) {
	dir, _, err := e.paths()
	if err != nil {
		return nil, err
	}
	info, running, err := app.ReadGatewayInfo(dir)
	if err != nil {
		return nil, err
	}
	if !running {
		return e.openLocal(mode)
	}
	s, c, err := e.openRemote(dir, info)
	if err != nil {
		return nil, err
	}
	herr := health(e.ctx, c)
	if herr == nil {
		return s, nil
	}
	// gateway.json names a live process that does not answer: a stale file
	// whose pid was reused, or a gateway that is stopping. If the state dir
	// is free, work in-process; if not, the gateway's error says more.
	in, err := e.openLocal(mode)
	if errors.Is(err, app.ErrLocked) {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Err: herr,
			Message: fmt.Sprintf("the gateway of %s (%s, pid %d) does not answer", dir, info.URL, info.PID)}
	}
	if err != nil {
		return nil, err
	}
	e.logger().Debug("gateway.json is stale; working in-process", "url", info.URL, "pid", info.PID, "err", herr)
	return in, nil
}

// openLocal opens the state dir in-process: read-only for reads, with a
// running engine (and the state-dir lock) for writes.
func (e *env) openLocal(mode access) (*service, error) {
	if mode == reads {
		return e.openReadOnly()
	}
	return e.openInProcess("cli")
}

// openInProcess opens the state dir with a running engine.
func (e *env) openInProcess(owner string) (*service, error) {
	dir, cfgPath, err := e.paths()
	if err != nil {
		return nil, err
	}
	log := e.logger()
	log.Debug("opening the state dir in-process", "stateDir", dir, "config", cfgPath, "owner", owner)
	a, err := app.Open(e.ctx, app.Options{
		StateDir:   dir,
		ConfigPath: cfgPath,
		Getenv:     e.getenv,
		Logger:     log,
		Owner:      owner,
		// --detach: record the work, leave it queued for the next engine.
		Hold: e.detach && owner == "cli",
		// A command runs its own work (and what is queued ahead of it on
		// its sessions); a process that serves runs everything.
		OwnWorkOnly: !serves(owner),
	})
	if err != nil {
		return nil, err
	}
	return &service{Service: a.Engine, env: e, keys: a.Config.KeyResolver(), app: a, eng: a.Engine}, nil
}

// serves reports whether an in-process owner of the state dir serves
// (the gateway, `switchboard mcp`): it runs every queued run, where a
// command runs only its own work and leaves the rest queued for it.
func serves(owner string) bool { return owner == app.GatewayOwner || owner == "mcp" }

// openReadOnly opens the store for reading with an engine that is never
// started: it runs, recovers and delivers nothing, beside whichever
// process may hold the state dir.
func (e *env) openReadOnly() (*service, error) {
	dir, cfgPath, err := e.paths()
	if err != nil {
		return nil, err
	}
	log := e.logger()
	log.Debug("opening the state dir read-only", "stateDir", dir)
	a, err := app.OpenReadOnly(e.ctx, app.Options{StateDir: dir, ConfigPath: cfgPath, Getenv: e.getenv, Logger: log})
	if err != nil {
		return nil, err
	}
	return &service{Service: a.Engine, env: e, keys: a.Config.KeyResolver(), app: a, eng: a.Engine, readOnly: true}, nil
}

// withService opens the service, runs fn and closes the service; a close
// error is reported unless fn failed first.
func (e *env) withService(mode access, fn func(s *service) error) (err error) {
	s, err := e.open(mode)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(e.ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	return fn(s)
}

// keysOf is the key resolver of cfg, or of the defaults when the config
// does not load (only used to print keys).
func keysOf(cfg *config.Config) sessionkey.Resolver {
	if cfg == nil {
		cfg = config.Default()
	}
	return cfg.KeyResolver()
}
