package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
)

// subagentsArgs are the subagents tool's parameters.
type subagentsArgs struct {
	Action string `json:"action,omitempty" jsonschema:"list (default) or cancel."`
	Target string `json:"target,omitempty" jsonschema:"With cancel: a runId, a childSessionKey, or \"all\"."`
}

func subagentsTool() *tool {
	return &tool{
		name: api.ToolSubagents,
		description: "List the sub-agents this session spawned, or cancel them. action \"list\" (default) shows each child's " +
			"status; action \"cancel\" with target (a runId, a childSessionKey or \"all\") cancels it and everything it started.",
		args:   fieldType[subagentsArgs](),
		limits: map[string]api.Limit{"target": api.KeyChars},
		enums:  map[string][]string{"action": {"list", "cancel"}},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a subagentsArgs
			given, err := decode(api.ToolSubagents, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := oneOf(given, "action", a.Action, []string{"list", "cancel"}); err != nil {
				return api.ToolOutcome{}, err
			}
			target := api.KeyChars
			target.Name = "target"
			if err := charsOf(given, target, a.Target); err != nil {
				return api.ToolOutcome{}, err
			}
			res, err := svc.Subagents(ctx, p, api.SubagentsRequest{Action: a.Action, Target: a.Target})
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
