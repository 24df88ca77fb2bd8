package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/tools"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTools are the tools advertised when Options.Tools is empty.
func DefaultTools() []string {
	return []string{
		api.ToolSessionsList, api.ToolSessionsHistory, api.ToolSessionsSend,
		api.ToolSessionsSpawn, api.ToolAgentsList, api.ToolSubagents, api.ToolRunsWait,
		api.ToolSessionsYield, api.ToolSessionStatus, api.ToolSessionsSearch,
	}
}

// idempotencyKeySchema is the schema of the idempotencyKey argument.
var idempotencyKeySchema = json.RawMessage(`{"type":"string","maxLength":256,` +
	`"description":"Makes a retried call safe: a repeated call with the same key returns the first call's run instead of starting another."}`)

// takesIdempotencyKey reports whether a tool changes state and takes an
// idempotencyKey argument. The engine accepts it on these tools but leaves
// it out of the specs it gives its own models; MCP clients that check
// arguments against the advertised schema (additionalProperties is false)
// would refuse it, so it is advertised here.
func takesIdempotencyKey(name string) bool {
	return name == api.ToolSessionsSend || name == api.ToolSessionsSpawn
}

func boolPtr(b bool) *bool { return &b }

// annotations are hints for clients deciding whether to ask a person
// before a call.
func annotations(name string) *mcp.ToolAnnotations {
	switch name {
	case api.ToolSessionsList:
		return &mcp.ToolAnnotations{Title: "List sessions", ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolSessionsHistory:
		return &mcp.ToolAnnotations{Title: "Read a session's transcript", ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolSessionsSend:
		// A reply may be announced to the target's channel: open world.
		return &mcp.ToolAnnotations{Title: "Send a message to a session", DestructiveHint: boolPtr(false)}
	case api.ToolSessionsSpawn:
		return &mcp.ToolAnnotations{Title: "Spawn a sub-agent", DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}
	case api.ToolAgentsList:
		return &mcp.ToolAnnotations{Title: "List agents", ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolSubagents:
		return &mcp.ToolAnnotations{Title: "List or cancel sub-agents", DestructiveHint: boolPtr(true), IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolRunsWait:
		return &mcp.ToolAnnotations{Title: "Wait for a run", ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolSessionsSearch:
		return &mcp.ToolAnnotations{Title: "Search transcripts", ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolSessionsYield:
		return &mcp.ToolAnnotations{Title: "End this turn and wait", DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	case api.ToolSessionStatus:
		// With model it changes the session's model: not read-only.
		return &mcp.ToolAnnotations{Title: "Session status (and model switch)", DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	}
	return nil
}

// buildTools returns the MCP definitions of the named tools, in order,
// and the names the engine does not know.
func buildTools(names []string) ([]*mcp.Tool, []string, error) {
	var defs []*mcp.Tool
	var unknown []string
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		specs := tools.Specs(name)
		if len(specs) != 1 {
			unknown = append(unknown, name)
			continue
		}
		spec := specs[0]
		schema := spec.InputSchema
		if takesIdempotencyKey(name) {
			var err error
			if schema, err = withProperty(schema, "idempotencyKey", idempotencyKeySchema); err != nil {
				return nil, nil, fmt.Errorf("tool %s: %w", name, err)
			}
		}
		defs = append(defs, &mcp.Tool{
			Name:        spec.Name,
			Description: spec.Description,
			InputSchema: schema,
			Annotations: annotations(name),
		})
	}
	return defs, unknown, nil
}

// withProperty returns schema (a JSON object schema) with one more
// property.
func withProperty(schema json.RawMessage, name string, prop json.RawMessage) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	props := map[string]json.RawMessage{}
	if raw, ok := top["properties"]; ok {
		if err := json.Unmarshal(raw, &props); err != nil {
			return nil, fmt.Errorf("input schema properties: %w", err)
		}
	}
	props[name] = prop
	b, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("input schema properties: %w", err)
	}
	top["properties"] = b
	out, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return out, nil
}
