package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Yield calls sessions_yield as p over POST /api/tools/sessions_yield. A
// client is never inside a run of the gateway's engine, so the answer is
// the "No session context" error; it is here so every surface carries the
// operation the same way.
func (c *Client) Yield(ctx context.Context, p api.Principal, req api.YieldRequest) (api.YieldResult, error) {
	args := map[string]any{}
	if req.Message != "" {
		args["message"] = req.Message
	}
	var out api.YieldResult
	err := c.toolCall(ctx, p, api.ToolSessionsYield, args, &out)
	return out, err
}

// SessionStatus calls session_status as p over POST /api/tools/session_status.
func (c *Client) SessionStatus(ctx context.Context, p api.Principal, req api.StatusRequest) (api.StatusResult, error) {
	args := map[string]any{}
	if req.SessionKey != "" {
		args["sessionKey"] = req.SessionKey
	}
	if req.Model != "" {
		args["model"] = req.Model
	}
	var out api.StatusResult
	err := c.toolCall(ctx, p, api.ToolSessionStatus, args, &out)
	return out, err
}

// toolCall invokes a tool and decodes its payload into out; an error
// outcome is a coded error with the tool's message.
func (c *Client) toolCall(ctx context.Context, p api.Principal, name string, args map[string]any, out any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := c.InvokeTool(ctx, p.Requester(), name, raw)
	if err != nil {
		return err
	}
	payload, _ := res.Payload.(json.RawMessage)
	if res.IsError {
		var e api.ErrorPayload
		_ = json.Unmarshal(payload, &e)
		code := domain.CodeInvalid
		switch {
		case e.Status == "forbidden":
			code = domain.CodeForbidden
		case e.Code != "":
			code = e.Code
		}
		return domain.Errorf(code, "%s", orDefault(e.Error, name+" failed"))
	}
	if err := json.Unmarshal(payload, out); err != nil {
		return fmt.Errorf("client: decode %s: %w", name, err)
	}
	return nil
}
