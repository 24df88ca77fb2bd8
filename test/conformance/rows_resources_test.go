package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resourceRows: sessions as MCP resources (resources/list, resources/read)
// honour the gate's visibility: a bound token lists and reads its own
// session only, and another session's resource is refused as its
// sessions_history is.
func resourceRows(_ *world) []row {
	onlyMCP := "sessions are resources on MCP only"
	others := []cell{na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner),
		na(sHTTP, onlyMCP), na(sWS, onlyMCP)}
	uri := func(key string) string { return "switchboard://session/" + url.PathEscape(key) }
	read := func(token, key string) cell {
		return custom(sMCPHTTP, "resources/read "+key, func(t *testing.T, w *world) outcome {
			res, err := w.mcpHTTPFor(t, token).ReadResource(deadline(t, 30e9), &mcp.ReadResourceParams{URI: uri(key)})
			return resourceOutcome(res, err)
		})
	}
	return []row{
		{finding: "32", name: "bound token: lists what sessions_list shows it as resources and reads its own",
			want: outcome{OK: true, Fields: map[string]string{"lists its session": "true", "lists the foreign session": "false",
				"same sessions as sessions_list": "true", "reads its transcript": "true"}},
			cells: append([]cell{boundSeeded(custom(sMCPHTTP, "resources/list; resources/read", func(t *testing.T, w *world) outcome {
				s := w.mcpHTTPFor(t, boundToken)
				// Rows running beside this one add sessions of agent guest
				// (A2A tasks), so the two listings are compared in a window
				// where sessions_list answered the same before and after.
				listTool := func() []string {
					var keys []string
					res, err := s.CallTool(deadline(t, 30e9), &mcp.CallToolParams{Name: "sessions_list", Arguments: m{}})
					if err != nil {
						return nil
					}
					b, _ := json.Marshal(res.StructuredContent)
					var v struct {
						Sessions []struct {
							Key string `json:"key"`
						} `json:"sessions"`
					}
					_ = json.Unmarshal(b, &v)
					for _, r := range v.Sessions {
						keys = append(keys, uri(r.Key))
					}
					sort.Strings(keys)
					return keys
				}
				var uris, tool []string
				for range 20 {
					before := listTool()
					list, err := s.ListResources(deadline(t, 30e9), nil)
					if err != nil {
						return resourceOutcome(nil, err)
					}
					uris = uris[:0]
					for _, r := range list.Resources {
						uris = append(uris, r.URI)
					}
					sort.Strings(uris)
					tool = listTool()
					if slices.Equal(before, tool) {
						break
					}
				}
				out := resourceOutcome(s.ReadResource(deadline(t, 30e9), &mcp.ReadResourceParams{URI: uri(boundKey)}))
				out.Fields = map[string]string{
					"lists its session":              fmt.Sprint(slices.Contains(uris, uri(boundKey))),
					"lists the foreign session":      fmt.Sprint(slices.Contains(uris, uri(foreignKey))),
					"same sessions as sessions_list": fmt.Sprint(len(tool) > 0 && slices.Equal(uris, tool)),
					"reads its transcript":           fmt.Sprint(strings.Contains(out.Payload, "hello bound")),
				}
				return out
			}))}, others...)},
		{finding: "32", name: "bound token: another session's resource refused as its history is",
			want: outcome{Code: "forbidden"},
			cells: append([]cell{read(boundToken, foreignKey), mcpHTTPC(boundToken, "sessions_history", m{"sessionKey": foreignKey})},
				others...)},
	}
}

// resourceOutcome normalises a resources/read (or list) answer: a
// JSON-RPC error's data.code is the refusal's code.
func resourceOutcome(res *mcp.ReadResourceResult, err error) outcome {
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return outcome{Code: "transport", Msg: err.Error()}
		}
		var data struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(we.Data, &data)
		return outcome{Code: data.Code, Msg: we.Message, Payload: string(we.Data)}
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return outcome{OK: true, Payload: b.String()}
}
