package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
)

// historyArgs are sessions_history's parameters.
type historyArgs struct {
	SessionKey   string  `json:"sessionKey" jsonschema:"Session key (or sessionId) from sessions_list; \"main\" is your agent's main session."`
	Limit        float64 `json:"limit,omitempty" jsonschema:"Maximum messages"`
	IncludeTools bool    `json:"includeTools,omitempty" jsonschema:"Include toolResult messages (default false)."`
}

func historyTool() *tool {
	return &tool{
		name: api.ToolSessionsHistory,
		description: "Read the transcript of one session: its newest messages in order, in the raw transcript format " +
			"({role, content, timestamp, provenance?}). sessionKey takes a key from sessions_list, \"main\", \"current\" or a sessionId. " +
			"Tool results are left out unless includeTools is true. Long texts are cut at 4000 characters and credentials are masked; " +
			"the result says whether anything was truncated.",
		args:   fieldType[historyArgs](),
		limits: map[string]api.Limit{"limit": api.HistoryLimit, "sessionKey": api.KeyChars},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a historyArgs
			given, err := decode(api.ToolSessionsHistory, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := required(given, "sessionKey", a.SessionKey); err != nil {
				return api.ToolOutcome{}, err
			}
			if err := charsOf(given, api.KeyChars, a.SessionKey); err != nil {
				return api.ToolOutcome{}, err
			}
			r := api.HistoryRequest{SessionKey: a.SessionKey, IncludeTools: a.IncludeTools}
			if r.Limit, err = limitOf(given, api.HistoryLimit, a.Limit); err != nil {
				return api.ToolOutcome{}, err
			}
			res, err := svc.History(ctx, p, r)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
