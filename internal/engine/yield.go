package engine

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Yield is sessions_yield as the principal: inside a run of this engine it
// answers {status:"yielded", message} and the runtime ends the run's turn
// after the tool call (see hooks.CallTool); the next input the session
// receives (a sub-agent's announce, a send, a chat message) starts the
// next turn as a queued run. Outside a run there is no turn to end.
func (e *Engine) Yield(ctx context.Context, p api.Principal, r api.YieldRequest) (_ api.YieldResult, err error) {
	defer e.audited(ctx, p, api.OpSessionsYield, "", &err)
	if _, err := e.enter(p, api.OpSessionsYield); err != nil {
		return api.YieldResult{}, err
	}
	if err := api.YieldMessageChars.CheckChars(r.Message); err != nil {
		return api.YieldResult{}, err
	}
	if p.RunID == "" {
		return api.YieldResult{}, domain.Invalid("%s", api.ErrNoSessionContext)
	}
	return api.YieldResult{Status: "yielded", Message: r.Message}, nil
}

// endTurn marks the tool result of a successful sessions_yield so the
// runtime ends the run with the yield's message as its reply.
func endTurn(name string, out api.ToolOutcome, res *domain.ToolResult) {
	if name != api.ToolSessionsYield || out.IsError {
		return
	}
	var y api.YieldResult
	switch v := out.Payload.(type) {
	case api.YieldResult:
		y = v
	default:
		if json.Unmarshal(out.JSON(), &y) != nil {
			return
		}
	}
	if y.Status == "yielded" {
		res.EndTurn, res.EndReply = true, y.Message
	}
}
