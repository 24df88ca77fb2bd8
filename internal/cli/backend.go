package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// backend is what commands call: the engine in-process, or the running
// gateway of the state dir. as is the requester session key for calls
// where visibility applies; "" means operator rights (the CLI's default).
type backend interface {
	ListSessions(ctx context.Context, as string, p engine.ListParams) (engine.ListResult, error)
	History(ctx context.Context, as string, p engine.HistoryParams) (engine.HistoryResult, error)
	Patch(ctx context.Context, ref string, p engine.PatchParams) (domain.Session, error)
	Reset(ctx context.Context, ref string) (domain.Session, error)
	Delete(ctx context.Context, ref string) (string, error)
	Chat(ctx context.Context, req engine.ChatRequest) (engine.ChatResult, error)
	Send(ctx context.Context, as string, p engine.SendParams) (engine.SendResult, error)
	Spawn(ctx context.Context, as string, p engine.SpawnParams) (engine.SpawnResult, error)
	AgentsList(ctx context.Context, as string) (policy.AgentsListResult, error)
	GetRun(ctx context.Context, id string) (domain.Run, error)
	Wait(ctx context.Context, id string, timeout time.Duration) (domain.Run, error)
	CancelRun(ctx context.Context, id string) (domain.Run, error)
	ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error)
	Outbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error)
	// Remote reports whether calls go to a gateway (whose work goes on
	// after the command exits).
	Remote() bool
	// Close ends the backend. In-process, unless detach is set, it first
	// waits for the work in hand to settle.
	Close(ctx context.Context) error
}

// open returns the backend for this command: the gateway of the state dir
// when gateway.json names a live one, else the engine in-process (which
// takes the state-dir lock).
func (e *env) open() (backend, error) {
	dir, _, err := e.paths()
	if err != nil {
		return nil, err
	}
	info, running, err := app.ReadGatewayInfo(dir)
	if err != nil {
		return nil, err
	}
	if !running {
		return e.openInProcess("cli")
	}
	b, err := e.openRemote(dir, info)
	if err != nil {
		return nil, err
	}
	herr := b.health(e.ctx)
	if herr == nil {
		return b, nil
	}
	// gateway.json names a live process that does not answer: a stale file
	// whose pid was reused, or a gateway that is stopping. If the state dir
	// is free, work in-process; if not, the gateway's error says more.
	in, err := e.openInProcess("cli")
	if errors.Is(err, app.ErrLocked) {
		return nil, fmt.Errorf("the gateway of %s (%s, pid %d) does not answer: %w", dir, info.URL, info.PID, herr)
	}
	if err != nil {
		return nil, err
	}
	e.logger().Debug("gateway.json is stale; working in-process", "url", info.URL, "pid", info.PID, "err", herr)
	return in, nil
}

// openInProcess opens the state dir with a running engine.
func (e *env) openInProcess(owner string) (*inproc, error) {
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
	})
	if err != nil {
		return nil, err
	}
	return &inproc{env: e, app: a, eng: a.Engine}, nil
}

// withReadBackend is withBackend for commands that only read: when another
// process holds the state dir without serving it (an in-process
// `switchboard mcp`, another command), they read the store beside it.
func (e *env) withReadBackend(fn func(b backend) error) (err error) {
	b, err := e.open()
	if errors.Is(err, app.ErrLocked) {
		b, err = e.openReadOnly()
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := b.Close(e.ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	return fn(b)
}

// openReadOnly opens the store for reading beside the process that holds
// the state dir; its engine runs nothing.
func (e *env) openReadOnly() (*inproc, error) {
	dir, cfgPath, err := e.paths()
	if err != nil {
		return nil, err
	}
	log := e.logger()
	log.Debug("state dir in use by another process; reading beside it", "stateDir", dir)
	a, err := app.OpenReadOnly(e.ctx, app.Options{StateDir: dir, ConfigPath: cfgPath, Getenv: e.getenv, Logger: log})
	if err != nil {
		return nil, err
	}
	return &inproc{env: e, app: a, eng: a.Engine, readOnly: true}, nil
}

// withBackend opens the backend, runs fn and closes the backend; a close
// error is reported unless fn failed first.
func (e *env) withBackend(fn func(b backend) error) (err error) {
	b, err := e.open()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := b.Close(e.ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	return fn(b)
}
