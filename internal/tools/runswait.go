package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// runsWaitArgs are runs_wait's parameters.
type runsWaitArgs struct {
	RunID          string  `json:"runId" jsonschema:"The runId to wait for."`
	TimeoutSeconds float64 `json:"timeoutSeconds,omitempty" jsonschema:"Seconds to wait"`
}

func runsWaitTool() *tool {
	return &tool{
		name:        api.ToolRunsWait,
		description: "Wait again for a run started earlier (a sessions_send that timed out, a spawned sub-agent): returns {runId, status, reply?, error?} once it ends or when timeoutSeconds pass.",
		args:        fieldType[runsWaitArgs](),
		limits:      map[string]api.Limit{"timeoutSeconds": api.WaitTimeout},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a runsWaitArgs
			given, err := decode(api.ToolRunsWait, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := required(given, "runId", a.RunID); err != nil {
				return api.ToolOutcome{}, err
			}
			timeout := api.WaitTimeout.Default
			if given["timeoutSeconds"] {
				if timeout, err = api.WaitTimeout.ApplyFloat(a.TimeoutSeconds); err != nil {
					return api.ToolOutcome{}, err
				}
			}
			r, err := svc.WaitRun(ctx, p, api.WaitRequest{RunID: a.RunID, Timeout: time.Duration(timeout) * time.Second})
			if err != nil {
				return api.ToolOutcome{}, err
			}
			res := api.WaitResult{RunID: r.ID, Status: r.Status, Reply: r.Reply, Error: r.Error, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
			if !domain.RunTerminal(r.Status) {
				res.WaitTimedOut = true
			}
			return api.ToolOutcome{Payload: res, IsError: res.Status == domain.RunError}, nil
		},
	}
}
