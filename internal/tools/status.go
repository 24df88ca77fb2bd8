package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// statusArgs are session_status's parameters.
type statusArgs struct {
	SessionKey string `json:"sessionKey,omitempty" jsonschema:"Session key (or sessionId) to inspect; default: this session."`
	Model      string `json:"model,omitempty" jsonschema:"Switch the session's model (provider/model), or \"default\" to go back to the agent's model."`
}

func statusTool() *tool {
	return &tool{
		name: api.ToolSessionStatus,
		description: "Show a session's status card: model, thinking level, tokens and cost, the active run and its age, " +
			"queued runs, sub-agents still running, send policy and last activity. Without sessionKey: this session. " +
			"With model: switch that session's model for its next runs (\"default\" clears the switch).",
		args:   fieldType[statusArgs](),
		limits: map[string]api.Limit{"sessionKey": api.KeyChars, "model": api.ModelChars},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a statusArgs
			given, err := decode(api.ToolSessionStatus, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := charsOf(given, api.KeyChars, a.SessionKey); err != nil {
				return api.ToolOutcome{}, err
			}
			if given["model"] {
				if err := required(given, "model", a.Model); err != nil {
					return api.ToolOutcome{}, domain.Invalid("model must not be empty (a provider/model reference, or \"default\")")
				}
				if err := api.ModelChars.CheckChars(a.Model); err != nil {
					return api.ToolOutcome{}, err
				}
			}
			res, err := svc.SessionStatus(ctx, p, api.StatusRequest{SessionKey: a.SessionKey, Model: a.Model})
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
