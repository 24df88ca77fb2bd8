package conformance

import (
	"net/http"
	"strings"
)

// listSearchRows: sessions.list's substring search is bounded like
// sessions_search's query (api.ListSearchChars), so a huge search is
// refused rather than carried (docs/reliability.md, "Hostile callers").
func listSearchRows(_ *world) []row {
	long := strings.Repeat("s", 501)
	noSearch := "the sessions_list tool has no search parameter (an operator filter of the CLI, HTTP and WS listings)"
	return []row{
		{finding: "search", name: "sessions.list with a search over 500 characters is invalid, naming the limit",
			want:       outcome{Code: "invalid", Msg: "search is too long (501 characters; max 500)"},
			sameFields: []string{"Msg"},
			cells: []cell{
				cliC(sCLI, "sessions", "list", "--search", long),
				cliC(sCLIGW, "sessions", "list", "--search", long),
				httpC(operatorToken, http.MethodGet, "/api/sessions?search="+long, nil),
				wsC(operatorToken, "sessions.list", m{"search": long}),
				na(sMCPStdio, noSearch), na(sMCPHTTP, noSearch),
			}},
	}
}
