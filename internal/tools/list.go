package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// listArgs are sessions_list's parameters.
type listArgs struct {
	Kinds         []string `json:"kinds,omitempty" jsonschema:"Only sessions of these kinds."`
	Limit         float64  `json:"limit,omitempty" jsonschema:"Maximum rows"`
	ActiveMinutes float64  `json:"activeMinutes,omitempty" jsonschema:"Only sessions updated within this many minutes"`
	MessageLimit  float64  `json:"messageLimit,omitempty" jsonschema:"Include the last N messages of each session"`
	Offset        float64  `json:"offset,omitempty" jsonschema:"Skip this many rows (the nextOffset of the previous page)"`
}

// Kinds are the session kinds sessions_list filters by.
var kinds = []string{domain.KindMain, domain.KindGroup, domain.KindCron, domain.KindHook, domain.KindNode, domain.KindOther}

func listTool() *tool {
	return &tool{
		name: api.ToolSessionsList,
		description: "List sessions you can see (your own session and, by default, the sub-agent sessions you spawned), newest first. " +
			"Use it to find a session key before sessions_history or sessions_send. Filter with kinds (main, group, cron, hook, node, other) " +
			"and activeMinutes; set messageLimit to include each session's last messages (tool results are left out; each message has its id, as in sessions_history). " +
			"Returns {count, sessions:[{key, kind, channel, updatedAt, sessionId, model, totalTokens, …}], hasMore, nextOffset?}; " +
			"pass nextOffset as offset for the next page.",
		args: fieldType[listArgs](),
		limits: map[string]api.Limit{"kinds": api.ListKinds, "limit": api.ListLimit, "activeMinutes": api.ListActiveMinutes, "messageLimit": api.ListMessageLimit,
			"offset": api.ListOffset},
		enums: map[string][]string{"kinds": kinds},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a listArgs
			given, err := decode(api.ToolSessionsList, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			var r api.ListRequest
			if len(a.Kinds) > int(api.ListKinds.Max) {
				return api.ToolOutcome{}, domain.Invalid("kinds has too many items (%d; max %d)", len(a.Kinds), api.ListKinds.Max)
			}
			for _, k := range a.Kinds {
				r.Kinds = append(r.Kinds, strings.ToLower(strings.TrimSpace(k)))
			}
			if r.Limit, err = limitOf(given, api.ListLimit, a.Limit); err != nil {
				return api.ToolOutcome{}, err
			}
			if r.ActiveMinutes, err = limitOf(given, api.ListActiveMinutes, a.ActiveMinutes); err != nil {
				return api.ToolOutcome{}, err
			}
			if r.MessageLimit, err = limitOf(given, api.ListMessageLimit, a.MessageLimit); err != nil {
				return api.ToolOutcome{}, err
			}
			if r.Offset, err = limitOf(given, api.ListOffset, a.Offset); err != nil {
				return api.ToolOutcome{}, err
			}
			res, err := svc.ListSessions(ctx, p, r)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
