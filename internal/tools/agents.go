package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
)

// agentsArgs: agents_list takes no parameters.
type agentsArgs struct{}

func agentsTool() *tool {
	return &tool{
		name:        api.ToolAgentsList,
		description: "List the agent ids you may use as agentId in sessions_spawn, with their names and models, and in remotes the remote A2A agents you can reach with sessions_send at agent:<id>:<name> (allowed says whether you may).",
		args:        fieldType[agentsArgs](),
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			if _, err := decode(api.ToolAgentsList, raw, &agentsArgs{}); err != nil {
				return api.ToolOutcome{}, err
			}
			res, err := svc.AgentsList(ctx, p)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
