package cli

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// reloader reloads a running gateway's configuration on SIGHUP. The file
// is loaded and validated first; an invalid one is logged with its
// problems and the running configuration stays. A valid one takes effect
// for what can change live — the gateway's tokens (gateway.auth) and the
// engine's live keys (engine.LiveKeys: send policy, owners, visibility,
// agent-to-agent policy, agents' models, prompts and tool filters) — and
// every other change is logged as needing a restart.
type reloader struct {
	env  *env
	log  *slog.Logger
	path string // the config file
	addr string // the address the gateway listens on

	mu  sync.Mutex
	cfg *config.Config // the last configuration loaded
	srv *gateway.Server
	eng *engine.Engine
}

// reload runs one reload and logs its outcome.
func (r *reloader) reload() {
	r.mu.Lock()
	defer r.mu.Unlock()
	next, err := app.LoadConfig(r.path, r.env.getenv)
	if err != nil {
		r.log.Error("config reload failed; the running configuration stays", "config", r.path, "problems", err.Error())
		return
	}
	token, tokens := gatewayToken(r.env.getenv, next), next.Gateway.Auth.Tokens
	authOn := token != "" || slices.ContainsFunc(tokens, func(b config.TokenBinding) bool { return b.Token != "" })
	if err := gateway.CheckListenAddr(r.addr, authOn); err != nil {
		r.log.Error("config reload failed; the running configuration stays", "config", r.path, "problems", err.Error())
		return
	}
	applied, restart, err := r.eng.Reload(next)
	if err != nil {
		r.log.Error("config reload failed; the running configuration stays", "config", r.path, "problems", err.Error())
		return
	}
	if !reflect.DeepEqual(r.cfg.Gateway.Auth, next.Gateway.Auth) || gatewayToken(r.env.getenv, r.cfg) != token {
		applied = append(applied, "gateway.auth")
	}
	r.srv.SetAuth(token, tokens)
	restart = slices.DeleteFunc(restart, func(k string) bool { return k == "gateway.auth" })
	r.cfg = next
	attrs := []any{"config", r.path, "applied", orNone(applied)}
	if len(restart) > 0 {
		r.log.Warn("config reloaded; some changes need a restart", append(attrs, "needRestart", restart)...)
		return
	}
	r.log.Info("config reloaded", attrs...)
}

func orNone(keys []string) any {
	if len(keys) == 0 {
		return "none"
	}
	return keys
}

// authMode names how the gateway authenticates, for its start line.
func authMode(tokenRequired bool) string {
	if tokenRequired {
		return "token"
	}
	return "none"
}

// stopReason says why the gateway stopped: the signal (Process), the
// context's end, or the serve error.
func stopReason(ctx context.Context, serveErr error) string {
	var sig stopSignal
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &sig):
		return sig.Error()
	case cause != nil:
		return cause.Error()
	case serveErr != nil:
		return "error"
	}
	return "stopped"
}
