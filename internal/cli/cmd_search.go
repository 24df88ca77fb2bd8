package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

func sessionsSearchCommand() *command {
	return &command{
		name:    "search",
		args:    "QUERY",
		summary: "find messages by their words",
		help: "Searches transcripts like the sessions_search tool: messages containing every word of QUERY\n" +
			"(whole words, any case), newest first, in the sessions you may read (all without --as).\n" +
			"Snippets are masked like history text. --cursor continues from a previous page's nextCursor.",
		example: []string{
			`switchboard sessions search "deploy failed"`,
			`switchboard sessions search timeout --agent ops --since 60 --limit 5`,
			`switchboard sessions search invoice --kinds main,group --json`,
			`switchboard sessions search report --as agent:main:research   # what that session may find`,
		},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var kinds listFlag
			kinds.split = true
			var limit, since intFlag
			fs.Var(&kinds, "kinds", "only sessions of these `KINDS` (comma-separated: main,group,cron,hook,node,other)")
			fs.Var(&limit, "limit", "at most `N` results ("+api.SearchLimit.Describe()+")")
			fs.Var(&since, "since", "only messages of the last `N` minutes ("+api.SearchSinceMinutes.Describe()+")")
			agent := fs.String("agent", "", "only sessions of agent `ID`")
			cursor := fs.String("cursor", "", "continue from the `CURSOR` a previous page returned as nextCursor")
			as := fs.String("as", "", "act as session `KEY` (visibility applies)")
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "QUERY"); err != nil {
					return err
				}
				p := api.SearchRequest{Query: pos[0], AgentID: strings.TrimSpace(*agent), Cursor: *cursor}
				for _, k := range kinds.v {
					k = strings.ToLower(k)
					if !slices.Contains(sessionKinds, k) {
						return e.usagef("--kinds: unknown kind %q (use %s)", k, strings.Join(sessionKinds, ", "))
					}
					p.Kinds = append(p.Kinds, k)
				}
				var err error
				if p.Limit, err = e.limited("limit", &limit, api.SearchLimit, 0); err != nil {
					return err
				}
				if p.SinceMinutes, err = e.limited("since", &since, api.SearchSinceMinutes, 0); err != nil {
					return err
				}
				return e.withService(reads, func(s *service) error {
					res, err := s.Search(e.ctx, principal(*as), p)
					if err != nil {
						return err
					}
					for i := range res.Results {
						res.Results[i].SessionKey = s.canonical(res.Results[i].SessionKey, *as)
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					return writeSearch(e, res)
				})
			}
		},
	}
}

// writeSearch prints one page of search results.
func writeSearch(e *env, res api.SearchResult) error {
	if res.Count == 0 {
		_, err := fmt.Fprintln(e.stdout, "No matches.")
		return err
	}
	now := time.Now()
	t := newTable(e.stdout, "SESSION", "MESSAGE", "ROLE", "WHEN", "SNIPPET")
	for _, h := range res.Results {
		snippet := strings.Join(strings.Fields(h.Snippet), " ")
		t.row(h.SessionKey, h.MessageID, h.Role, ago(h.Timestamp, now), snippet)
	}
	if err := t.flush(); err != nil {
		return err
	}
	noun := "matches"
	if res.Count == 1 {
		noun = "match"
	}
	if res.NextCursor != "" {
		_, err := fmt.Fprintf(e.stdout, "%d %s; more with --cursor %s\n", res.Count, noun, res.NextCursor)
		return err
	}
	_, err := fmt.Fprintf(e.stdout, "%d %s\n", res.Count, noun)
	return err
}
