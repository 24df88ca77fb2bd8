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
	// Paging: older pages by message id (stable while messages arrive) or
	// by offset from the newest.
	BeforeMessageID string  `json:"beforeMessageId,omitempty" jsonschema:"Only messages older than this message id (nextBeforeMessageId of the previous page, or a sessions_search messageId)."`
	Offset          float64 `json:"offset,omitempty" jsonschema:"Skip this many of the newest messages (after beforeMessageId, if given)"`
}

func historyTool() *tool {
	return &tool{
		name: api.ToolSessionsHistory,
		description: "Read the transcript of one session: its newest messages in order, in the raw transcript format " +
			"({role, content, timestamp, provenance?}). sessionKey takes a key from sessions_list, \"main\", \"current\" or a sessionId. " +
			"Tool results are left out unless includeTools is true. Long texts are cut at 4000 characters and credentials are masked; " +
			"the result says whether anything was truncated. Each message has a stable id; when older messages exist, hasMore is true " +
			"and nextBeforeMessageId reads the next older page (it stays right while new messages arrive).",
		args: fieldType[historyArgs](),
		limits: map[string]api.Limit{"limit": api.HistoryLimit, "sessionKey": api.KeyChars, "offset": api.HistoryOffset,
			"beforeMessageId": api.MessageIDChars},
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
			if err := charsOf(given, api.MessageIDChars, a.BeforeMessageID); err != nil {
				return api.ToolOutcome{}, err
			}
			r := api.HistoryRequest{SessionKey: a.SessionKey, IncludeTools: a.IncludeTools, BeforeMessageID: a.BeforeMessageID}
			if r.Limit, err = limitOf(given, api.HistoryLimit, a.Limit); err != nil {
				return api.ToolOutcome{}, err
			}
			if r.Offset, err = limitOf(given, api.HistoryOffset, a.Offset); err != nil {
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
