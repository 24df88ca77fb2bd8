package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
)

// yieldArgs are sessions_yield's parameters.
type yieldArgs struct {
	Message string `json:"message,omitempty" jsonschema:"A short note on what you are waiting for; it becomes this turn's reply."`
}

func yieldTool() *tool {
	return &tool{
		name: api.ToolSessionsYield,
		description: "End your turn now and wait: no further model call happens in this run after this tool returns " +
			"{status:\"yielded\", message}. The next input this session receives — typically the announce of a sub-agent " +
			"you spawned — starts your next turn. Use it after sessions_spawn instead of polling.",
		args:   fieldType[yieldArgs](),
		limits: map[string]api.Limit{"message": api.YieldMessageChars},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a yieldArgs
			given, err := decode(api.ToolSessionsYield, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := charsOf(given, api.YieldMessageChars, a.Message); err != nil {
				return api.ToolOutcome{}, err
			}
			res, err := svc.Yield(ctx, p, api.YieldRequest{Message: a.Message})
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
