package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// RemoteCaller calls the session tools of a running gateway (its
// POST /api/tools/{name}), so `switchboard mcp` never opens a second
// engine on a state dir the gateway owns.
type RemoteCaller struct {
	Client *client.Client
}

var _ Caller = RemoteCaller{}

// CallTool forwards a tool call to the gateway, acting as p's requester;
// the gateway decides the rest of the principal from its token.
func (rc RemoteCaller) CallTool(ctx context.Context, p api.Principal, name string, args json.RawMessage) api.ToolOutcome {
	if rc.Client == nil {
		return errorOutcome(domain.Errorf(domain.CodeUnavailable, "no gateway client"))
	}
	out, err := rc.Client.InvokeTool(ctx, p.Requester(), name, args)
	if err != nil {
		return errorOutcome(remoteError(ctx, err))
	}
	if raw, ok := out.Payload.(json.RawMessage); ok && isNull(raw) {
		return errorOutcome(domain.Errorf(domain.CodeUnavailable, "the gateway returned no result for %s", name))
	}
	return out
}

// remoteError keeps the gateway's coded errors and says what failed
// otherwise: the user of a stdio session needs to know the gateway is
// unreachable, not that something internal happened.
func remoteError(ctx context.Context, err error) error {
	var de *domain.Error
	switch {
	case errors.As(err, &de):
		return err
	case ctx.Err() != nil:
		return domain.Errorf(domain.CodeUnavailable, "cancelled")
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: "switchboard gateway: " + err.Error(), Err: err}
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// withArgument adds name: value to a JSON object of arguments unless it
// (or its alias) is there. Anything but an object is left for the engine
// to refuse.
func withArgument(args json.RawMessage, name, alias, value string) json.RawMessage {
	m := map[string]json.RawMessage{}
	if !isNull(args) {
		if err := json.Unmarshal(args, &m); err != nil || m == nil {
			return args
		}
	}
	if _, ok := m[name]; ok {
		return args
	}
	if _, ok := m[alias]; ok {
		return args
	}
	v, err := json.Marshal(value)
	if err != nil {
		return args
	}
	m[name] = v
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}

// ListSessions lists the sessions p may see, through the gateway.
func (rc RemoteCaller) ListSessions(ctx context.Context, p api.Principal, req api.ListRequest) (api.ListResult, error) {
	if rc.Client == nil {
		return api.ListResult{}, domain.Errorf(domain.CodeUnavailable, "no gateway client")
	}
	out, err := rc.Client.ListSessions(ctx, p, req)
	if err != nil {
		return out, remoteError(ctx, err)
	}
	return out, nil
}

// History reads a session's transcript as p, through the gateway.
func (rc RemoteCaller) History(ctx context.Context, p api.Principal, req api.HistoryRequest) (api.HistoryResult, error) {
	if rc.Client == nil {
		return api.HistoryResult{}, domain.Errorf(domain.CodeUnavailable, "no gateway client")
	}
	out, err := rc.Client.History(ctx, p, req)
	if err != nil {
		return out, remoteError(ctx, err)
	}
	return out, nil
}

// GetSession is one session row p may see, through the gateway.
func (rc RemoteCaller) GetSession(ctx context.Context, p api.Principal, ref string) (api.SessionRow, error) {
	if rc.Client == nil {
		return api.SessionRow{}, domain.Errorf(domain.CodeUnavailable, "no gateway client")
	}
	out, err := rc.Client.GetSession(ctx, p, ref)
	if err != nil {
		return out, remoteError(ctx, err)
	}
	return out, nil
}

// AgentsList lists the agents p may target, through the gateway.
func (rc RemoteCaller) AgentsList(ctx context.Context, p api.Principal) (api.AgentsListResult, error) {
	if rc.Client == nil {
		return api.AgentsListResult{}, domain.Errorf(domain.CodeUnavailable, "no gateway client")
	}
	out, err := rc.Client.AgentsList(ctx, p)
	if err != nil {
		return out, remoteError(ctx, err)
	}
	return out, nil
}
