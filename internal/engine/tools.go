package engine

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
)

type ToolOutcome = api.ToolOutcome

// errPayload is the payload of a failed tool call.
type errPayload struct {
	RunID      string `json:"runId,omitempty"`
	Status     string `json:"status"`
	Error      string `json:"error"`
	SessionKey string `json:"sessionKey,omitempty"`
}

// failure turns err into an error outcome.
func failure(err error) ToolOutcome {
	p := errPayload{Status: "error", Error: domain.ErrorMessage(err)}
	if domain.ErrorCode(err) == domain.CodeForbidden {
		p.Status = "forbidden"
	}
	return ToolOutcome{Payload: p, IsError: true}
}

// CallTool calls a session tool as req. Unknown tools and bad arguments are
// error outcomes, never Go errors: every surface shows them the same way.
func (e *Engine) callTool(ctx context.Context, req Requester, name string, raw json.RawMessage) ToolOutcome {
	if req.SessionKey != "" {
		key, err := e.canonical(req.SessionKey, e.cfg.DefaultAgentID())
		if err != nil {
			return failure(domain.Invalid("requester session: %v", domain.ErrorMessage(err)))
		}
		req.resolved = key
	}
	var out ToolOutcome
	var err error
	switch name {
	case ToolSessionsList:
		out, err = e.toolList(ctx, req, raw)
	case ToolSessionsHistory:
		out, err = e.toolHistory(ctx, req, raw)
	case ToolSessionsSend:
		out, err = e.toolSend(ctx, req, raw)
	case ToolSessionsSpawn:
		out, err = e.toolSpawn(ctx, req, raw)
	case ToolAgentsList:
		out, err = e.toolAgentsList(ctx, req, raw)
	case ToolSubagents:
		out, err = e.toolSubagents(ctx, req, raw)
	case ToolRunsWait:
		out, err = e.toolRunsWait(ctx, req, raw)
	default:
		return failure(domain.Invalid("tool not available: %s", name))
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return failure(domain.Errorf(domain.CodeUnavailable, "cancelled"))
		}
		if domain.ErrorCode(err) == domain.CodeInternal {
			e.log.Error("tool failed", "tool", name, "err", err)
		}
		return failure(err)
	}
	return out
}
