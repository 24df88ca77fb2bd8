package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/controlui"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/gateway"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
	"github.com/switchboard-go/switchboard/internal/web"
)

// defaultListen is the gateway's address when neither --listen nor
// gateway.listen says otherwise.
const defaultListen = "127.0.0.1:18789"

// tokenEnv names the environment variable holding the gateway token; it
// wins over gateway.auth.token.
const tokenEnv = "SWITCHBOARD_GATEWAY_TOKEN"

// gatewayToken is the main gateway token: $SWITCHBOARD_GATEWAY_TOKEN, else
// gateway.auth.token.
func gatewayToken(getenv func(string) string, cfg *config.Config) string {
	if t := getenv(tokenEnv); t != "" {
		return t
	}
	if cfg != nil {
		return cfg.Gateway.Auth.Token
	}
	return ""
}

func gatewayCommand() *command {
	return &command{
		name:    "gateway",
		summary: "run the server: WebSocket gateway, HTTP API, MCP at /mcp, web UI",
		help: "Serves the OpenClaw-compatible WebSocket protocol on /, the JSON API under /api/, MCP (streamable\n" +
			"HTTP) at /mcp, the web UI at /, /healthz and /metrics, until SIGINT or SIGTERM. It refuses a\n" +
			"non-loopback address unless a token is configured ($SWITCHBOARD_GATEWAY_TOKEN or\n" +
			"gateway.auth.token); with a token, HTTP calls need `Authorization: Bearer <token>`. While it runs,\n" +
			"other commands on the same state dir talk to it (it writes <state-dir>/gateway.json). SIGHUP reloads\n" +
			"the config: tokens, send policy, visibility and agents' models and prompts take effect; the log\n" +
			"says what needs a restart, and an invalid file is logged and ignored. Logs at info by default.",
		example: []string{
			"switchboard gateway",
			"SWITCHBOARD_GATEWAY_TOKEN=s3cret switchboard gateway --listen 0.0.0.0:18789",
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var listen strFlag
			fs.Var(&listen, "listen", "listen on `ADDR` (default gateway.listen, else "+defaultListen+")")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				return runGateway(e, listen)
			}
		},
	}
}

func runGateway(e *env, listen strFlag) (err error) {
	e.serving = true // logs at info unless --log-level says otherwise
	stopProfile, err := startCPUProfile(e.getenv)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	dir, cfgPath, err := e.paths()
	if err != nil {
		return err
	}
	if info, running, err := app.ReadGatewayInfo(dir); err != nil {
		return err
	} else if running {
		return fmt.Errorf("a gateway already runs on %s (pid %d, %s)", dir, info.PID, info.URL)
	}
	s, err := e.openInProcess(app.GatewayOwner)
	if err != nil {
		return err
	}
	a := s.app
	closed := false // the deferred close is for the early returns
	defer func() {
		if closed {
			return
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), closeTimeout)
		defer cancel()
		err = errors.Join(err, a.Close(cctx))
	}()
	cfg := a.Config
	addr := listen.v
	if !listen.set {
		addr = orDefault(cfg.Gateway.Listen, defaultListen)
	}
	log := e.logger()
	version := buildVersion().Version
	mcp := mcpserver.New(a.Engine, mcpserver.Options{Version: version, Logger: log,
		MaxRequestBytes: gateway.MCPBodyLimit(cfg)})
	var controlUI *controlui.Handler
	if ui := cfg.Gateway.ControlUI; ui.On() {
		controlUI, err = controlui.New(controlui.Options{Root: ui.Root, BasePath: ui.BasePath, ServerVersion: version})
		if err != nil {
			return fmt.Errorf("gateway: %w", err)
		}
	}
	a2aSurface, stopPush, err := a2aHandler(a.Engine, cfg, log, version)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	defer stopPush()
	srv, err := gateway.New(gateway.Options{
		Engine: a.Engine,
		Config: cfg,
		Token:  gatewayToken(e.getenv, cfg),
		Tokens: cfg.Gateway.Auth.Tokens,
		MCP: mcp.HTTPHandler(func(r *http.Request) (api.Principal, error) {
			p, ok := gateway.PrincipalOf(r)
			if !ok {
				return api.Principal{}, domain.Errorf(domain.CodeForbidden, "no principal")
			}
			return p, nil
		}),
		A2A:       a2aSurface,
		Channels:  a.Channels,
		Pairing:   a.Pairing,
		Web:       web.Handler(),
		ControlUI: controlUI,
		Logger:    log,
		Version:   version,
	})
	if err != nil {
		return err
	}
	ln, err := srv.Listen(e.ctx, addr)
	if err != nil {
		return err
	}
	host := ln.Addr().String()
	info := app.GatewayInfo{URL: "http://" + host, WSURL: "ws://" + host + "/", PID: os.Getpid(),
		TokenRequired: srv.TokenRequired(), StartedAt: time.Now().UTC().Format(time.RFC3339)}
	if err := app.WriteGatewayInfo(dir, info); err != nil {
		ln.Close()
		return fmt.Errorf("gateway: %w", err)
	}
	defer app.RemoveGatewayInfo(dir)
	log.Info("switchboard started", "addr", host, "url", info.URL, "stateDir", dir, "store", app.StoreName(a.Config, dir),
		"config", cfgPath, "version", version, "pid", info.PID, "auth", authMode(srv.TokenRequired()))
	fmt.Fprintf(e.stdout, "switchboard gateway listening on %s (web UI, WebSocket, /mcp, /api, /a2a)\n", info.URL)
	if err := a.StartChannels(e.ctx, log); err != nil {
		return err
	}
	rep := a.Engine.StartReport()
	log.Info("recovery", "runsRequeued", rep.Requeued, "runsAborted", rep.Aborted, "runsResumed", rep.Resumed,
		"mirrorFilesRepaired", rep.MirrorRepaired, "attachmentDirsRemoved", rep.AttachmentsRemoved)

	// SIGHUP (through Process) reloads the configuration while it serves.
	hups, unlisten := e.hup.listen()
	defer unlisten()
	rl := &reloader{env: e, log: log, path: cfgPath, addr: host, cfg: cfg, srv: srv, eng: a.Engine}
	rctx, stopReload := context.WithCancel(e.ctx)
	var reloads sync.WaitGroup
	reloads.Add(1)
	go func() {
		defer reloads.Done()
		for {
			select {
			case <-rctx.Done():
				return
			case <-hups:
				rl.reload()
			}
		}
	}()

	serveErr := srv.Serve(e.ctx, ln)
	stopReload()
	reloads.Wait()
	// Serve shut the listener down gracefully when ctx ended; the MCP
	// handler's calls and then the engine go next (in-flight runs are
	// recorded as aborted, queued work stays for the next start).
	stopping := time.Now()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), closeTimeout)
	defer cancel()
	serveErr = errors.Join(serveErr, srv.Shutdown(cctx), mcp.Close(cctx))
	stopPush()
	closed = true
	serveErr = errors.Join(serveErr, a.Close(cctx))
	attrs := []any{"reason", stopReason(e.ctx, serveErr), "shutdown", time.Since(stopping).Round(time.Millisecond).String()}
	if serveErr != nil {
		log.Error("switchboard stopped", append(attrs, "err", serveErr)...)
	} else {
		log.Info("switchboard stopped", attrs...)
	}
	return serveErr
}

func mcpCommand() *command {
	return &command{
		name:    "mcp",
		summary: "serve MCP over stdio as a requester session",
		help: "Speaks MCP (newline-delimited JSON-RPC) on stdin/stdout and offers the session tools, acting as\n" +
			"session KEY (default: the default agent's main session), so tools.sessions.visibility applies.\n" +
			"It talks to the running gateway of the state dir if there is one, else runs the engine\n" +
			"in-process. Logs go to stderr only; stdout is the protocol.",
		example: []string{
			"switchboard mcp",
			"switchboard mcp --session agent:main:research",
			`claude mcp add switchboard -- switchboard mcp --state-dir ~/.switchboard`,
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			session := fs.String("session", "", "act as session `KEY` (default: the default agent's main session)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				return runMCP(e, *session)
			}
		},
	}
}

func runMCP(e *env, session string) (err error) {
	dir, _, err := e.paths()
	if err != nil {
		return err
	}
	info, running, err := app.ReadGatewayInfo(dir)
	if err != nil {
		return err
	}
	if running {
		return e.runRemoteMCP(dir, info, session)
	}
	s, err := e.openInProcess("mcp")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close(e.ctx)) }()
	return e.serveMCP(s, s.eng, session)
}
