package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Rows for sessions_search and the paging parameters of sessions_list
// and sessions_history, on every surface that carries them.

// searchFields extracts what search rows compare: how many results, and
// whether any names agent:main:main (as "main" in tool results, canonical
// elsewhere) or the foreign session, or quotes its secret.
func searchFields(p []byte) map[string]string {
	var v struct {
		Count   *int `json:"count"`
		Results []struct {
			SessionKey string `json:"sessionKey"`
			MessageID  string `json:"messageId"`
			Snippet    string `json:"snippet"`
		} `json:"results"`
	}
	_ = json.Unmarshal(p, &v)
	main, ids := false, true
	for _, r := range v.Results {
		main = main || r.SessionKey == "main" || r.SessionKey == "agent:main:main"
		ids = ids && r.MessageID != ""
	}
	count := ""
	switch {
	case v.Count != nil:
		count = fmt.Sprint(*v.Count > 0)
	case v.Results != nil:
		// WS sessions.search has OpenClaw's result: no count.
		count = fmt.Sprint(len(v.Results) > 0)
	}
	return map[string]string{
		"found any":           count,
		"finds main":          fmt.Sprint(main),
		"every hit has an id": fmt.Sprint(ids),
		"shows the foreign":   fmt.Sprint(strings.Contains(string(p), foreignKey) || strings.Contains(string(p), "secret of another")),
	}
}

func searchRows(_ *world) []row {
	q := m{"query": "hello main"}
	secret := m{"query": "secret another"}
	return []row{
		{finding: "15", name: "operator: sessions_search finds a seeded message on every surface",
			want: outcome{OK: true, Fields: map[string]string{"found any": "true", "finds main": "true",
				"every hit has an id": "true", "shows the foreign": "false"}},
			fields: searchFields,
			cells: []cell{
				cliC(sCLI, "sessions", "search", "hello main", "--json"),
				cliC(sCLIGW, "sessions", "search", "hello main", "--json"),
				httpC(operatorToken, http.MethodGet, "/api/search?query=hello+main", nil),
				httpToolC(operatorToken, "", "sessions_search", q),
				wsC(operatorToken, "sessions.search", q),
				wsToolC(operatorToken, "", "sessions_search", q),
				stdioC("", "sessions_search", q),
				mcpHTTPC(operatorToken, "sessions_search", q),
			}},
		{finding: "15", name: "operator: sessions_search finds the foreign session's secret (the control of the next row)",
			want:   outcome{OK: true, Fields: map[string]string{"found any": "true", "shows the foreign": "true"}},
			fields: func(p []byte) map[string]string { f := searchFields(p); return m2(f, "found any", "shows the foreign") },
			cells: []cell{
				na(sCLI, "the in-process state dir has no foreign session"),
				cliC(sCLIGW, "sessions", "search", "secret another", "--json"),
				httpC(operatorToken, http.MethodGet, "/api/search?query=secret+another", nil),
				httpToolC(operatorToken, "", "sessions_search", secret),
				wsC(operatorToken, "sessions.search", secret),
				wsToolC(operatorToken, "", "sessions_search", secret),
				stdioC("", "sessions_search", secret),
				mcpHTTPC(operatorToken, "sessions_search", secret),
			}},
		{finding: "15", name: "bound and sandboxed requesters: sessions_search never shows a session they may not see, not even as a count",
			want: outcome{OK: true, Fields: map[string]string{"found any": "false", "shows the foreign": "false", "finds main": "false"}},
			fields: func(p []byte) map[string]string {
				f := searchFields(p)
				return m2(f, "found any", "shows the foreign", "finds main")
			},
			cells: []cell{
				cliC(sCLI, "sessions", "search", "hello main", "--as", sandboxKey, "--json"),
				cliC(sCLIGW, "sessions", "search", "secret another", "--as", boundKey, "--json"),
				httpC(boundToken, http.MethodGet, "/api/search?query=secret+another", nil),
				httpC(operatorToken, http.MethodGet, "/api/search?query=hello+main&as="+esc(sandboxKey), nil),
				httpToolC(boundToken, "", "sessions_search", secret),
				httpToolC(operatorToken, sandboxKey, "sessions_search", q),
				wsC(boundToken, "sessions.search", secret),
				wsToolC(boundToken, "", "sessions_search", secret),
				wsToolC(operatorToken, sandboxKey, "sessions_search", q),
				stdioC(sandboxKey, "sessions_search", q),
				mcpHTTPC(boundToken, "sessions_search", secret),
			}},
		{finding: "15", name: "bound token: sessions_search finds its own session's messages",
			want:   outcome{OK: true, Fields: map[string]string{"found any": "true", "shows the foreign": "false"}},
			fields: func(p []byte) map[string]string { f := searchFields(p); return m2(f, "found any", "shows the foreign") },
			cells: []cell{
				na(sCLI, cliIsOperator), boundSeeded(cliC(sCLIGW, "sessions", "search", "hello bound", "--as", boundKey, "--json")),
				boundSeeded(httpC(boundToken, http.MethodGet, "/api/search?query=hello+bound", nil)),
				boundSeeded(httpToolC(boundToken, "", "sessions_search", m{"query": "hello bound"})),
				boundSeeded(wsC(boundToken, "sessions.search", m{"query": "hello bound"})),
				boundSeeded(wsToolC(boundToken, "", "sessions_search", m{"query": "hello bound"})),
				boundSeeded(stdioC(boundKey, "sessions_search", m{"query": "hello bound"})),
				boundSeeded(mcpHTTPC(boundToken, "sessions_search", m{"query": "hello bound"})),
			}},
		{finding: "15", name: "sessions_search without a query is invalid, naming the field",
			want: outcome{Code: "invalid", Msg: "query required"},
			cells: []cell{
				cliC(sCLI, "sessions", "search", " "),
				cliC(sCLIGW, "sessions", "search", " "),
				httpC(operatorToken, http.MethodGet, "/api/search?query=", nil),
				httpToolC(operatorToken, "", "sessions_search", m{"query": ""}),
				openclawWords(wsC(operatorToken, "sessions.search", m{}), "invalid sessions.search params: must have required property 'query'"),
				wsToolC(operatorToken, "", "sessions_search", m{}),
				stdioC("", "sessions_search", m{"query": " "}),
				mcpHTTPC(operatorToken, "sessions_search", m{}),
			}},
		{finding: "15", name: "sessions_search with a bad cursor is invalid",
			want: outcome{Code: "invalid", Msg: "cursor is not valid"},
			cells: []cell{
				cliC(sCLI, "sessions", "search", "hello", "--cursor", "bogus"),
				cliC(sCLIGW, "sessions", "search", "hello", "--cursor", "bogus"),
				httpC(operatorToken, http.MethodGet, "/api/search?query=hello&cursor=bogus", nil),
				httpToolC(operatorToken, "", "sessions_search", m{"query": "hello", "cursor": "bogus"}),
				wsC(operatorToken, "sessions.search", m{"query": "hello", "cursor": "bogus"}),
				wsToolC(operatorToken, "", "sessions_search", m{"query": "hello", "cursor": "bogus"}),
				stdioC("", "sessions_search", m{"query": "hello", "cursor": "bogus"}),
				mcpHTTPC(operatorToken, "sessions_search", m{"query": "hello", "cursor": "bogus"}),
			}},
		{finding: "15", name: "sessions_search with a query over 500 characters is invalid, naming the limit",
			want: outcome{Code: "invalid", Msg: "query is too long (501 characters; max 500)"},
			cells: []cell{
				cliC(sCLI, "sessions", "search", strings.Repeat("q", 501)),
				cliC(sCLIGW, "sessions", "search", strings.Repeat("q", 501)),
				httpC(operatorToken, http.MethodGet, "/api/search?query="+strings.Repeat("q", 501), nil),
				httpToolC(operatorToken, "", "sessions_search", m{"query": strings.Repeat("q", 501)}),
				wsC(operatorToken, "sessions.search", m{"query": strings.Repeat("q", 501)}),
				wsToolC(operatorToken, "", "sessions_search", m{"query": strings.Repeat("q", 501)}),
				stdioC("", "sessions_search", m{"query": strings.Repeat("q", 501)}),
				mcpHTTPC(operatorToken, "sessions_search", m{"query": strings.Repeat("q", 501)}),
			}},
	}
}

// m2 keeps the named fields of f.
func m2(f map[string]string, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = f[n]
	}
	return out
}

// pagingRows: sessions_list's offset/hasMore/nextOffset and
// sessions_history's beforeMessageId/hasMore/nextBeforeMessageId.
func pagingRows(_ *world) []row {
	listFields := func(p []byte) map[string]string {
		return map[string]string{"hasMore": jsonPath(p, "hasMore"), "nextOffset": jsonPath(p, "nextOffset"), "count": jsonPath(p, "count")}
	}
	histFields := func(p []byte) map[string]string {
		return map[string]string{"hasMore": jsonPath(p, "hasMore"), "nextBeforeMessageId": jsonPath(p, "nextBeforeMessageId"),
			"first message id": jsonPath(p, "messages.0.id")}
	}
	noWSHistory := "chat.history keeps OpenClaw's parameters; history paging is on tools.invoke"
	cliOutOfRange := "a CLI flag beyond int64 is a usage error (exit 2, out of range) before anything is sent"
	return []row{
		{finding: "15", name: "operator: sessions_list limit 1 says hasMore and nextOffset 1",
			want:   outcome{OK: true, Fields: map[string]string{"hasMore": "true", "nextOffset": "1", "count": "1"}},
			fields: listFields,
			cells: []cell{
				cliC(sCLI, "sessions", "list", "--limit", "1", "--json"),
				cliC(sCLIGW, "sessions", "list", "--limit", "1", "--json"),
				httpC(operatorToken, http.MethodGet, "/api/sessions?limit=1", nil),
				httpToolC(operatorToken, "", "sessions_list", m{"limit": 1}),
				wsC(operatorToken, "sessions.list", m{"limit": 1}),
				wsToolC(operatorToken, "", "sessions_list", m{"limit": 1}),
				stdioC("", "sessions_list", m{"limit": 1}),
				mcpHTTPC(operatorToken, "sessions_list", m{"limit": 1}),
			}},
		{finding: "search", name: "sessions_list limit beyond int64 (1e20) clamps on every surface that clamps, as the tools do",
			want:   outcome{OK: true, Fields: map[string]string{"hasMore": "false", "nextOffset": "", "count": anyValue}},
			fields: listFields,
			cells: []cell{
				na(sCLI, cliOutOfRange), na(sCLIGW, cliOutOfRange),
				httpC(operatorToken, http.MethodGet, "/api/sessions?limit=1e20", nil),
				httpToolC(operatorToken, "", "sessions_list", m{"limit": 1e20}),
				wsC(operatorToken, "sessions.list", m{"limit": 1e20}),
				wsToolC(operatorToken, "", "sessions_list", m{"limit": 1e20}),
				stdioC("", "sessions_list", m{"limit": 1e20}),
				mcpHTTPC(operatorToken, "sessions_list", m{"limit": 1e20}),
			}},
		{finding: "15", name: "bound token: sessions_list offset past its visible sessions is empty and has no more",
			want:   outcome{OK: true, Fields: map[string]string{"hasMore": "false", "nextOffset": "", "count": "0"}},
			fields: listFields,
			cells: []cell{
				na(sCLI, cliIsOperator), cliC(sCLIGW, "sessions", "list", "--offset", "1000", "--as", boundKey, "--json"),
				httpC(boundToken, http.MethodGet, "/api/sessions?offset=1000", nil),
				httpToolC(boundToken, "", "sessions_list", m{"offset": 1000}),
				wsC(boundToken, "sessions.list", m{"offset": 1000}),
				wsToolC(boundToken, "", "sessions_list", m{"offset": 1000}),
				stdioC(boundKey, "sessions_list", m{"offset": 1000}),
				mcpHTTPC(boundToken, "sessions_list", m{"offset": 1000}),
			}},
		{finding: "15", name: "sessions_list offset -1 is invalid, naming the field and the limit",
			want: outcome{Code: "invalid", Msg: "offset must be at least 0"},
			cells: []cell{
				cliC(sCLI, "sessions", "list", "--offset", "-1"),
				cliC(sCLIGW, "sessions", "list", "--offset", "-1"),
				httpC(operatorToken, http.MethodGet, "/api/sessions?offset=-1", nil),
				httpToolC(operatorToken, "", "sessions_list", m{"offset": -1}),
				openclawWords(wsC(operatorToken, "sessions.list", m{"offset": -1}), "invalid sessions.list params: at /offset: must be >= 0"),
				wsToolC(operatorToken, "", "sessions_list", m{"offset": -1}),
				stdioC("", "sessions_list", m{"offset": -1}),
				mcpHTTPC(operatorToken, "sessions_list", m{"offset": -1}),
			}},
		{finding: "15", name: "operator: sessions_history limit 1 gives message ids, hasMore and nextBeforeMessageId",
			want: outcome{OK: true, Fields: map[string]string{"hasMore": "true", "nextBeforeMessageId": anyValue,
				"first message id": anyValue}},
			fields: histFields,
			cells: []cell{
				cliC(sCLI, "sessions", "history", "main", "--limit", "1", "--json"),
				cliC(sCLIGW, "sessions", "history", "main", "--limit", "1", "--json"),
				httpC(operatorToken, http.MethodGet, "/api/sessions/agent:main:main/history?limit=1", nil),
				httpToolC(operatorToken, "", "sessions_history", m{"sessionKey": "agent:main:main", "limit": 1}),
				na(sWS, noWSHistory),
				wsToolC(operatorToken, "", "sessions_history", m{"sessionKey": "agent:main:main", "limit": 1}),
				stdioC("", "sessions_history", m{"sessionKey": "agent:main:main", "limit": 1}),
				mcpHTTPC(operatorToken, "sessions_history", m{"sessionKey": "agent:main:main", "limit": 1}),
			}},
		{finding: "15", name: "sessions_history with an unknown beforeMessageId is invalid, naming the field",
			want: outcome{Code: "invalid", Msg: `beforeMessageId "ffffffff" is not a message of session`},
			cells: []cell{
				cliC(sCLI, "sessions", "history", "agent:main:main", "--before", "ffffffff"),
				cliC(sCLIGW, "sessions", "history", "agent:main:main", "--before", "ffffffff"),
				httpC(operatorToken, http.MethodGet, "/api/sessions/agent:main:main/history?beforeMessageId=ffffffff", nil),
				httpToolC(operatorToken, "", "sessions_history", m{"sessionKey": "agent:main:main", "beforeMessageId": "ffffffff"}),
				na(sWS, noWSHistory),
				wsToolC(operatorToken, "", "sessions_history", m{"sessionKey": "agent:main:main", "beforeMessageId": "ffffffff"}),
				stdioC("", "sessions_history", m{"sessionKey": "agent:main:main", "beforeMessageId": "ffffffff"}),
				mcpHTTPC(operatorToken, "sessions_history", m{"sessionKey": "agent:main:main", "beforeMessageId": "ffffffff"}),
			}},
		{finding: "15", name: "sessions_history offset over 1000000 is invalid, naming the limit",
			want: outcome{Code: "invalid", Msg: "offset must be at most 1000000"},
			cells: []cell{
				cliC(sCLI, "sessions", "history", "agent:main:main", "--offset", "1000001"),
				cliC(sCLIGW, "sessions", "history", "agent:main:main", "--offset", "1000001"),
				httpC(operatorToken, http.MethodGet, "/api/sessions/agent:main:main/history?offset=1000001", nil),
				httpToolC(operatorToken, "", "sessions_history", m{"sessionKey": "agent:main:main", "offset": 1000001}),
				na(sWS, noWSHistory),
				wsToolC(operatorToken, "", "sessions_history", m{"sessionKey": "agent:main:main", "offset": 1000001}),
				stdioC("", "sessions_history", m{"sessionKey": "agent:main:main", "offset": 1000001}),
				mcpHTTPC(operatorToken, "sessions_history", m{"sessionKey": "agent:main:main", "offset": 1000001}),
			}},
	}
}

// boundSeeded runs c with "hello bound" in the bound session's current
// transcript: rows that reset the bound session run in parallel (a reset
// starts a new transcript, which search reads alone), so the cell writes
// the message again and searches while holding boundMu, as those resets do.
func boundSeeded(c cell) cell {
	run := c.run
	c.run = func(t *testing.T, w *world) outcome {
		w.boundMu.Lock()
		defer w.boundMu.Unlock()
		w.chatHTTP(t, boundKey, "hello bound")
		return run(t, w)
	}
	return c
}
