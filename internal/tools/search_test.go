package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/api"
)

// TestSearchAndPagingDecode: sessions_search's parameters and the paging
// parameters of sessions_list and sessions_history, good and bad.
func TestSearchAndPagingDecode(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             any
		wantErr          string
	}{
		{"search", api.ToolSessionsSearch, `{"query": "deploy failed"}`, api.SearchRequest{Query: "deploy failed"}, ""},
		{"search all params, aliases", api.ToolSessionsSearch,
			`{"query": "x", "kinds": [" Main "], "agent_id": "ops", "since_minutes": 60, "limit": 5, "cursor": "abc"}`,
			api.SearchRequest{Query: "x", Kinds: []string{"main"}, AgentID: "ops", SinceMinutes: 60, Limit: 5, Cursor: "abc"}, ""},
		{"search limit clamped", api.ToolSessionsSearch, `{"query": "x", "limit": 1000}`, api.SearchRequest{Query: "x", Limit: 100}, ""},
		{"search limit zero clamped", api.ToolSessionsSearch, `{"query": "x", "limit": 0}`, api.SearchRequest{Query: "x", Limit: 1}, ""},
		{"search sinceMinutes clamped", api.ToolSessionsSearch, `{"query": "x", "sinceMinutes": 1e9}`,
			api.SearchRequest{Query: "x", SinceMinutes: 525600}, ""},
		{"search query required", api.ToolSessionsSearch, `{}`, nil, "query required"},
		{"search query empty", api.ToolSessionsSearch, `{"query": "  "}`, nil, "query required (it is empty)"},
		{"search query too long", api.ToolSessionsSearch, `{"query": "` + strings.Repeat("a", 501) + `"}`, nil, "query is too long (501 characters; max 500)"},
		{"search limit negative", api.ToolSessionsSearch, `{"query": "x", "limit": -1}`, nil, "limit must be at least 1"},
		{"search limit fraction", api.ToolSessionsSearch, `{"query": "x", "limit": 2.5}`, nil, "limit must be a whole number"},
		{"search cursor too long", api.ToolSessionsSearch, `{"query": "x", "cursor": "` + strings.Repeat("c", 129) + `"}`, nil, "cursor is too long"},
		{"search cursor not a string", api.ToolSessionsSearch, `{"query": "x", "cursor": 5}`, nil, "cursor must be a string"},
		{"search agentId too long", api.ToolSessionsSearch, `{"query": "x", "agentId": "` + strings.Repeat("a", 65) + `"}`, nil, "agentId is too long"},
		{"search too many kinds", api.ToolSessionsSearch, `{"query": "x", "kinds": ["a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a"]}`, nil, "kinds has too many items"},
		{"search unknown", api.ToolSessionsSearch, `{"query": "x", "page": 2}`, nil, `unknown parameter "page"`},
		{"list offset", api.ToolSessionsList, `{"offset": 40}`, api.ListRequest{Offset: 40}, ""},
		{"list offset negative", api.ToolSessionsList, `{"offset": -1}`, nil, "offset must be at least 0 (got -1)"},
		{"list offset too large", api.ToolSessionsList, `{"offset": 1000001}`, nil, "offset must be at most 1000000"},
		{"history beforeMessageId", api.ToolSessionsHistory, `{"sessionKey": "main", "before_message_id": "0a1b2c3d", "offset": 3}`,
			api.HistoryRequest{SessionKey: "main", BeforeMessageID: "0a1b2c3d", Offset: 3}, ""},
		{"history offset negative", api.ToolSessionsHistory, `{"sessionKey": "main", "offset": -5}`, nil, "offset must be at least 0"},
		{"history beforeMessageId too long", api.ToolSessionsHistory, `{"sessionKey": "main", "beforeMessageId": "` + strings.Repeat("f", 65) + `"}`,
			nil, "beforeMessageId is too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeService{}
			out := Call(context.Background(), f, api.Operator(), tc.tool, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				p, _ := out.Payload.(api.ErrorPayload)
				if !out.IsError || !strings.Contains(p.Error, tc.wantErr) {
					t.Fatalf("outcome = %+v, want an error containing %q", out, tc.wantErr)
				}
				if f.got != nil {
					t.Errorf("the service was called with %+v despite the error", f.got)
				}
				return
			}
			if out.IsError {
				t.Fatalf("outcome = %+v, want success", out)
			}
			if diff := cmp.Diff(tc.want, f.got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}
