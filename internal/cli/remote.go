package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// remote is the backend of a running gateway: its HTTP API through
// internal/client. Work it starts goes on in the gateway after the command
// exits, so Close has nothing to wait for.
type remote struct {
	c *client.Client
}

var _ backend = (*remote)(nil)

// openRemote returns a backend that talks to the running gateway.
func (e *env) openRemote(dir string, info app.GatewayInfo) (*remote, error) {
	c, err := e.gatewayClient(info)
	if err != nil {
		return nil, err
	}
	e.logger().Debug("using the running gateway", "url", info.URL, "pid", info.PID, "stateDir", dir)
	return &remote{c: c}, nil
}

// gatewayClient builds a client for the gateway of info, with the token
// from $SWITCHBOARD_GATEWAY_TOKEN, else gateway.auth.token.
func (e *env) gatewayClient(info app.GatewayInfo) (*client.Client, error) {
	token := e.getenv(tokenEnv)
	if token == "" && info.TokenRequired {
		_, cfgPath, err := e.paths()
		if err != nil {
			return nil, err
		}
		cfg, err := app.LoadConfig(cfgPath, e.getenv)
		if err != nil {
			return nil, fmt.Errorf("the gateway at %s needs a token and the config does not load (set $%s): %w", info.URL, tokenEnv, err)
		}
		token = gatewayToken(e.getenv, cfg)
		if token == "" {
			return nil, fmt.Errorf("the gateway at %s needs a token: set $%s or gateway.auth.token", info.URL, tokenEnv)
		}
	}
	return client.New(info.URL, token, nil), nil
}

func (b *remote) Remote() bool { return true }

// healthTimeout bounds the check that the gateway answers.
const healthTimeout = 3 * time.Second

// health checks that the gateway answers.
func (b *remote) health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	return b.c.Health(ctx)
}

// Close has nothing to release: the gateway owns the work.
func (b *remote) Close(context.Context) error { return nil }

func (b *remote) ListSessions(ctx context.Context, as string, p engine.ListParams) (engine.ListResult, error) {
	return b.c.ListSessions(ctx, as, p)
}

func (b *remote) History(ctx context.Context, as string, p engine.HistoryParams) (engine.HistoryResult, error) {
	return b.c.History(ctx, as, p)
}

func (b *remote) Patch(ctx context.Context, ref string, p engine.PatchParams) (domain.Session, error) {
	return b.c.Patch(ctx, ref, p)
}

func (b *remote) Reset(ctx context.Context, ref string) (domain.Session, error) {
	return b.c.Reset(ctx, ref)
}

func (b *remote) Delete(ctx context.Context, ref string) (string, error) {
	return ref, b.c.Delete(ctx, ref)
}

func (b *remote) Chat(ctx context.Context, req engine.ChatRequest) (engine.ChatResult, error) {
	return b.c.Chat(ctx, req)
}

func (b *remote) Send(ctx context.Context, as string, p engine.SendParams) (engine.SendResult, error) {
	return b.c.Send(ctx, as, p)
}

func (b *remote) Spawn(ctx context.Context, as string, p engine.SpawnParams) (engine.SpawnResult, error) {
	return b.c.Spawn(ctx, as, p)
}

func (b *remote) AgentsList(ctx context.Context, as string) (policy.AgentsListResult, error) {
	return b.c.Agents(ctx, as)
}

func (b *remote) GetRun(ctx context.Context, id string) (domain.Run, error) {
	return b.c.Run(ctx, id)
}

func (b *remote) Wait(ctx context.Context, id string, timeout time.Duration) (domain.Run, error) {
	return b.c.WaitRun(ctx, id, timeout)
}

func (b *remote) CancelRun(ctx context.Context, id string) (domain.Run, error) {
	return b.c.CancelRun(ctx, id)
}

func (b *remote) ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error) {
	return b.c.ListRuns(ctx, q)
}

// errNoRemoteOutbox says why outbox list needs the state dir itself.
var errNoRemoteOutbox = errors.New("outbox list reads the store directly and the gateway holds this state dir; stop the gateway, or watch deliveries in the web UI")

func (b *remote) Outbox(context.Context, domain.OutboxQuery) ([]domain.OutboxItem, error) {
	return nil, errNoRemoteOutbox
}

// remoteCaller adapts the gateway client to mcpserver.Caller: tool calls
// of `switchboard mcp` go to the gateway, which runs them as the requester.
type remoteCaller struct{ c *client.Client }

var _ mcpserver.Caller = remoteCaller{}

func (r remoteCaller) CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	out, err := r.c.CallTool(ctx, p.Requester(), name, args)
	if err != nil {
		status := "error"
		if domain.ErrorCode(err) == domain.CodeForbidden {
			status = "forbidden"
		}
		return api.ToolOutcome{Payload: map[string]string{"status": status, "error": errText(err)}, IsError: true}
	}
	return out
}

// errText is a coded error's client-safe message, or the error itself
// (a connection failure the local user should see).
func errText(err error) string {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Message
	}
	return err.Error()
}

// runRemoteMCP serves MCP on stdio, forwarding tool calls to the gateway.
func (e *env) runRemoteMCP(dir string, info app.GatewayInfo, session string) error {
	c, err := e.gatewayClient(info)
	if err != nil {
		return err
	}
	e.logger().Debug("mcp: forwarding tool calls to the running gateway", "url", info.URL, "stateDir", dir)
	srv := mcpserver.New(remoteCaller{c: c}, mcpserver.Options{Version: buildVersion().Version, Logger: e.logger()})
	return srv.RunStdio(e.ctx, api.Operator().ActingAs(orDefault(session, "main")), e.stdin, e.stdout)
}
