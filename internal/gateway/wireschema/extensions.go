package wireschema

// extensions are the params switchboard adds to OpenClaw's methods, as
// JSON Schemas: method → field → schema. They are the only params of
// these methods OpenClaw's gateway refuses and switchboard's accepts;
// docs/gateway.md lists them.
var extensions = map[string]map[string]string{
	// sessions.search is the sessions_search tool: its filters and its
	// paging cursor.
	"sessions.search": {
		"kinds":        `{"type":"array","items":{"type":"string"}}`,
		"sinceMinutes": `{"type":"integer"}`,
		"cursor":       `{"type":"string"}`,
	},
	// send takes files inline, in sessions_spawn's attachment shape
	// (OpenClaw's send takes media URLs only).
	"send": {
		"attachments": `{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"content":{"type":"string"},"encoding":{"type":"string"},"mimeType":{"type":"string"}},"required":["name","content"]}}`,
	},
}

// Extensions returns the fields switchboard adds to method's params
// (nil: none).
func Extensions(method string) []string {
	var out []string
	for name := range extensions[method] {
		out = append(out, name)
	}
	return out
}
