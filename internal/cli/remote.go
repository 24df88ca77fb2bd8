package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
)

// openRemote returns the service of a running gateway: its HTTP API
// through internal/client. Work it starts goes on in the gateway after the
// command exits, so Close has nothing to wait for.
func (e *env) openRemote(dir string, info app.GatewayInfo) (*service, *client.Client, error) {
	cfg, cfgErr := e.loadConfig()
	c, err := e.gatewayClient(info, cfg, cfgErr)
	if err != nil {
		return nil, nil, err
	}
	e.logger().Debug("using the running gateway", "url", info.URL, "pid", info.PID, "stateDir", dir)
	return &service{Service: c, env: e, keys: keysOf(cfg), remote: true}, c, nil
}

// loadConfig loads the config file the commands use.
func (e *env) loadConfig() (*config.Config, error) {
	_, cfgPath, err := e.paths()
	if err != nil {
		return nil, err
	}
	return app.LoadConfig(cfgPath, e.getenv)
}

// gatewayClient builds a client for the gateway of info, with the token
// from $SWITCHBOARD_GATEWAY_TOKEN, else gateway.auth.token.
func (e *env) gatewayClient(info app.GatewayInfo, cfg *config.Config, cfgErr error) (*client.Client, error) {
	token := e.getenv(tokenEnv)
	if token == "" && info.TokenRequired {
		if cfgErr != nil {
			return nil, fmt.Errorf("the gateway at %s needs a token and the config does not load (set $%s): %w", info.URL, tokenEnv, cfgErr)
		}
		token = gatewayToken(e.getenv, cfg)
		if token == "" {
			return nil, fmt.Errorf("the gateway at %s needs a token: set $%s or gateway.auth.token", info.URL, tokenEnv)
		}
	}
	return client.New(info.URL, token, nil), nil
}

// healthTimeout bounds the check that the gateway answers.
const healthTimeout = 3 * time.Second

// health checks that the gateway answers.
func health(ctx context.Context, c *client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	return c.Health(ctx)
}

// runRemoteMCP serves MCP on stdio, forwarding tool calls to the gateway.
func (e *env) runRemoteMCP(dir string, info app.GatewayInfo, session string) error {
	s, c, err := e.openRemote(dir, info)
	if err != nil {
		return err
	}
	e.logger().Debug("mcp: forwarding tool calls to the running gateway", "url", info.URL, "stateDir", dir)
	return e.serveMCP(s, mcpserver.RemoteCaller{Client: c}, session)
}

// serveMCP serves MCP on stdio with caller, acting as session (default:
// the default agent's main session). An unknown agent or a malformed key
// is refused by s before the first request, the same way in-process and
// remote.
func (e *env) serveMCP(s *service, caller mcpserver.Caller, session string) error {
	p := api.Operator().ActingAs(orDefault(session, "main"))
	if _, err := s.AgentsList(e.ctx, p); err != nil {
		return fmt.Errorf("--session: %w", err)
	}
	log := e.logger()
	srv := mcpserver.New(caller, mcpserver.Options{Version: buildVersion().Version, Logger: log, Logs: e.logs})
	return srv.RunStdio(e.ctx, p, e.stdin, e.stdout)
}
