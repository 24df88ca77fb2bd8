package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// errorPayload is the payload of a call that failed in this package (the
// server is closing, the gateway is unreachable), shaped like the engine's
// own failures.
type errorPayload struct {
	Status string `json:"status"`
	Error  string `json:"error"`
}

// errorOutcome turns err into an error outcome: status "forbidden" for a
// forbidden error, else "error", with the client-safe message. It is the
// one place where error codes map to MCP tool results.
func errorOutcome(err error) api.ToolOutcome {
	p := errorPayload{Status: "error", Error: domain.ErrorMessage(err)}
	if domain.ErrorCode(err) == domain.CodeForbidden {
		p.Status = "forbidden"
	}
	return api.ToolOutcome{Payload: p, IsError: true}
}

// toResult is the MCP tool result of an outcome: the payload as
// structuredContent and as indented JSON text (for clients that show only
// text), with isError set for error outcomes.
func toResult(out api.ToolOutcome) *mcp.CallToolResult {
	text, err := json.MarshalIndent(out.Payload, "", "  ")
	if err != nil {
		out = errorOutcome(domain.Errorf(domain.CodeInternal, "tool result is not JSON"))
		text, _ = json.MarshalIndent(out.Payload, "", "  ")
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(text)}},
		// The SDK compacts a RawMessage when it encodes the result, so the
		// payload is marshalled once for both forms.
		StructuredContent: json.RawMessage(text),
		IsError:           out.IsError,
	}
}
