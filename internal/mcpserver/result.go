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
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(text)}},
		// The SDK compacts a RawMessage when it encodes the result, so the
		// payload is marshalled once for both forms.
		StructuredContent: json.RawMessage(text),
		IsError:           out.IsError,
	}
}
