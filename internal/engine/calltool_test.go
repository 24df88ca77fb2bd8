package engine

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
)

// callTool calls a tool as the principal a Requester stands for in the
// engine's tests: the operator, or the session (with its run) an agent of
// that session would be.
func (e *Engine) callTool(ctx context.Context, req Requester, name string, args json.RawMessage) api.ToolOutcome {
	p := api.Operator()
	if !req.Operator {
		p = api.Principal{Name: "test", Scopes: api.AllScopes, Session: req.SessionKey, RunID: req.RunID, ToolCallID: req.ToolCallID}
		if p.Session == "" {
			p.Session = "main"
		}
	}
	return e.CallTool(ctx, p, name, args)
}
