package mcpserver

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-go/switchboard/internal/tracing"
)

// traceCall starts the server span of one tools/call. A client puts its
// W3C trace context in the request's _meta (`traceparent`, `tracestate`:
// the keys MCP reserves for it, SEP-414), the only carrier over stdio;
// when present it is the call's parent, over HTTP too, where it names
// the client's own span more exactly than the request's header. Without
// it the span joins whatever trace ctx already has (the HTTP request's).
func traceCall(ctx context.Context, name string, meta map[string]any) (context.Context, *tracing.Span) {
	if !tracing.Enabled() {
		return ctx, nil
	}
	if tp, ok := meta["traceparent"].(string); ok && tp != "" {
		ts, _ := meta["tracestate"].(string)
		ctx = tracing.ExtractState(ctx, tp, ts)
	}
	return tracing.StartServer(ctx, "tools/call "+name,
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", name))
}
