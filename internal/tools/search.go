package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// searchArgs are sessions_search's parameters.
type searchArgs struct {
	Query        string   `json:"query" jsonschema:"Words to find; a message matches when it contains every word (whole words, any case)."`
	Kinds        []string `json:"kinds,omitempty" jsonschema:"Only sessions of these kinds."`
	AgentID      string   `json:"agentId,omitempty" jsonschema:"Only sessions of this agent."`
	SinceMinutes float64  `json:"sinceMinutes,omitempty" jsonschema:"Only messages from the last this many minutes"`
	Limit        float64  `json:"limit,omitempty" jsonschema:"Maximum results"`
	Cursor       string   `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page, to read the next one."`
}

func searchTool() *tool {
	return &tool{
		name: api.ToolSessionsSearch,
		description: "Search the transcripts of the sessions you can see (the same ones sessions_history may read) for messages " +
			"containing every word of query, newest first. Returns {count, results:[{sessionKey, sessionId, messageId, role, timestamp, snippet}], nextCursor?}; " +
			"pass nextCursor back as cursor for more. Snippets are masked like history text. Read around a hit with sessions_history " +
			"(sessionKey, beforeMessageId).",
		args: fieldType[searchArgs](),
		limits: map[string]api.Limit{"query": api.SearchQueryChars, "kinds": api.ListKinds, "agentId": api.AgentIDChars,
			"sinceMinutes": api.SearchSinceMinutes, "limit": api.SearchLimit, "cursor": api.SearchCursorChars},
		enums: map[string][]string{"kinds": kinds},
		call: func(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
			var a searchArgs
			given, err := decode(api.ToolSessionsSearch, raw, &a)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			if err := required(given, "query", a.Query); err != nil {
				return api.ToolOutcome{}, err
			}
			for _, l := range []api.Limit{api.SearchQueryChars, api.AgentIDChars, api.SearchCursorChars} {
				v := map[string]string{"query": a.Query, "agentId": a.AgentID, "cursor": a.Cursor}[l.Name]
				if err := charsOf(given, l, v); err != nil {
					return api.ToolOutcome{}, err
				}
			}
			if len(a.Kinds) > int(api.ListKinds.Max) {
				return api.ToolOutcome{}, domain.Invalid("kinds has too many items (%d; max %d)", len(a.Kinds), api.ListKinds.Max)
			}
			r := api.SearchRequest{Query: a.Query, AgentID: a.AgentID, Cursor: a.Cursor}
			for _, k := range a.Kinds {
				r.Kinds = append(r.Kinds, strings.ToLower(strings.TrimSpace(k)))
			}
			if r.Limit, err = limitOf(given, api.SearchLimit, a.Limit); err != nil {
				return api.ToolOutcome{}, err
			}
			if r.SinceMinutes, err = limitOf(given, api.SearchSinceMinutes, a.SinceMinutes); err != nil {
				return api.ToolOutcome{}, err
			}
			res, err := svc.Search(ctx, p, r)
			if err != nil {
				return api.ToolOutcome{}, err
			}
			return ok(res)
		},
	}
}
