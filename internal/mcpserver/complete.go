package mcpserver

import (
	"context"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
)

// maxCompletions is the most values one completion/complete answers
// (MCP's cap).
const maxCompletions = 100

// completeScan bounds how many sessions one completion reads from the
// gate: a prefix the first pages do not complete is typed further.
const completeScan = 1000

// complete answers completion/complete for the sessionKey, agentId and
// label arguments of the prompts and the session template, from what
// the principal may see. Other arguments complete to nothing.
func (rs resources) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	arg := req.Params.Argument
	var values []string
	var err error
	switch arg.Name {
	case "sessionKey":
		values, err = rs.completeSessions(ctx, arg.Value, func(r api.SessionRow) string { return r.Key })
	case "label":
		values, err = rs.completeSessions(ctx, arg.Value, func(r api.SessionRow) string { return r.Label })
	case "agentId":
		var res api.AgentsListResult
		res, err = rs.sessions.AgentsList(ctx, rs.p)
		for _, a := range res.Agents {
			values = append(values, a.ID)
		}
		values = matching(values, arg.Value)
	}
	if err != nil {
		return nil, rpcError(err)
	}
	out := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}
	if len(values) > maxCompletions {
		out.Completion.Values, out.Completion.HasMore = values[:maxCompletions], true
	}
	if out.Completion.Values == nil {
		out.Completion.Values = []string{}
	}
	return out, nil
}

// completeSessions pages through the principal's sessions for the values
// of field that start with prefix.
func (rs resources) completeSessions(ctx context.Context, prefix string, field func(api.SessionRow) string) ([]string, error) {
	var all []string
	for offset := 0; offset < completeScan; {
		res, err := rs.sessions.ListSessions(ctx, rs.p, api.ListRequest{Limit: rs.page, Offset: offset})
		if err != nil {
			return nil, err
		}
		for _, r := range res.Sessions {
			all = append(all, field(r))
		}
		if !res.HasMore || len(res.Sessions) == 0 {
			break
		}
		offset += len(res.Sessions)
		if res.NextOffset != nil {
			offset = *res.NextOffset
		}
	}
	return matching(all, prefix), nil
}

// matching is the distinct non-empty values starting with prefix (case
// folded), sorted.
func matching(values []string, prefix string) []string {
	seen := map[string]bool{}
	var out []string
	p := strings.ToLower(prefix)
	for _, v := range values {
		if v == "" || seen[v] || !strings.HasPrefix(strings.ToLower(v), p) {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
