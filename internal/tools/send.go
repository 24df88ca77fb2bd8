package tools

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
)

// sendArgs are sessions_send's parameters.
type sendArgs struct {
	SessionKey     string  `json:"sessionKey,omitempty" jsonschema:"Target session key (or sessionId) from sessions_list."`
	Label          string  `json:"label,omitempty" jsonschema:"Target session label, instead of sessionKey."`
	AgentID        string  `json:"agentId,omitempty" jsonschema:"With label: the agent whose sessions to search."`
	Message        string  `json:"message" jsonschema:"The message to send."`
	TimeoutSeconds float64 `json:"timeoutSeconds,omitempty" jsonschema:"Seconds to wait for the reply (0 = do not wait)"`
	IdempotencyKey string  `json:"idempotencyKey,omitempty" jsonschema:"Makes a retried call safe."`
	Mode           string  `json:"mode,omitempty" jsonschema:"followup (default): queued after the target's current run; steer: given to the target's running run at its next step (else like followup); notify: written into the target's transcript without starting a run ({status:\"ok\", messageId})."`
}

func sendTool() *tool {
	return &tool{
		name: api.ToolSessionsSend,
		description: "Send a message into another session and (by default) wait for its agent's reply. " +
			"timeoutSeconds 0 sends without waiting ({status:\"accepted\"}); otherwise you get {status:\"ok\", reply}, " +
			"{status:\"timeout\"} (the run goes on: read it later with sessions_history) or {status:\"error\"}. " +
			"After the reply the two agents may continue for a few turns (reply exactly REPLY_SKIP to stop), then the target " +
			"announces the outcome to its channel (reply exactly ANNOUNCE_SKIP to stay silent). Give sessionKey or label, not both.",
		args: fieldType[sendArgs](),
		limits: map[string]api.Limit{"timeoutSeconds": api.SendTimeout, "message": api.MessageChars, "label": api.LabelChars,
			"sessionKey": api.KeyChars, "agentId": api.AgentIDChars, "idempotencyKey": api.IdempotencyKeyChars},
		enums:  map[string][]string{"mode": api.SendModes()},
		hidden: []string{"idempotencyKey"},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a sendArgs
			given, err := decode(api.ToolSessionsSend, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := required(given, "message", a.Message); err != nil {
				return api.ToolOutcome{}, err
			}
			for _, c := range []struct {
				l api.Limit
				v string
			}{{api.MessageChars, a.Message}, {api.LabelChars, a.Label}, {api.KeyChars, a.SessionKey}, {api.AgentIDChars, a.AgentID}, {api.IdempotencyKeyChars, a.IdempotencyKey}} {
				if err := charsOf(given, c.l, c.v); err != nil {
					return api.ToolOutcome{}, err
				}
			}
			if err := oneOf(given, "mode", a.Mode, api.SendModes()); err != nil {
				return api.ToolOutcome{}, err
			}
			r := api.SendRequest{SessionKey: a.SessionKey, Label: a.Label, AgentID: a.AgentID, Message: a.Message, IdempotencyKey: a.IdempotencyKey, Mode: a.Mode}
			if given["timeoutSeconds"] {
				n, err := limitOf(given, api.SendTimeout, a.TimeoutSeconds)
				if err != nil {
					return api.ToolOutcome{}, err
				}
				r.TimeoutSeconds = &n
			}
			res, err := svc.Send(ctx, p, r)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return api.ToolOutcome{Payload: res, IsError: res.Status == "error" || res.Status == "forbidden"}, nil
		},
	}
}
