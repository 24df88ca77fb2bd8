package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/tools"
)

// errorOutcome turns err into an error outcome, the same way a refused
// tool call is one (tools.Failure): a call that failed in this package
// (the server is closing, the gateway is unreachable) reads like the
// engine's own failures.
func errorOutcome(err error) api.ToolOutcome { return tools.Failure(err) }

// toResult is the MCP tool result of an outcome: the payload as
// structuredContent and as indented JSON text (for clients that show only
// text), with isError set for error outcomes.
func toResult(out api.ToolOutcome) *mcp.CallToolResult {
	text, err := json.MarshalIndent(out.Payload, "", "  ")
	if err != nil {
		out = errorOutcome(domain.Errorf(domain.CodeInternal, "tool result is not JSON"))
		text, _ = json.MarshalIndent(out.Payload, "", "  ")
	}
	res := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(text)}},
		// The SDK compacts a RawMessage when it encodes the result, so the
		// payload is marshalled once for both forms.
		StructuredContent: json.RawMessage(text),
		IsError:           out.IsError,
	}
	if out.IsError {
		if code := refusalCode(text); code != "" {
			res.Meta = mcp.Meta{CodeMetaKey: code}
		}
	}
	return res
}

// CodeMetaKey is the _meta key of a tool error result that names its
// machine-readable code (domain.Code*: invalid, forbidden, not_found,
// conflict, unavailable, timeout, internal), as the payload's code does:
// a client reads it without parsing the payload.
const CodeMetaKey = "switchboard/code"

// refusalCode is the code of an error payload: its code, else what its
// status says (forbidden, timeout); "" for a failure that names none (a
// run that ended in error).
func refusalCode(payload []byte) string {
	var p struct {
		Status string `json:"status"`
		Code   string `json:"code"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	switch {
	case p.Code != "":
		return p.Code
	case p.Status == "forbidden":
		return domain.CodeForbidden
	case p.Status == "timeout":
		return domain.CodeTimeout
	}
	return ""
}
