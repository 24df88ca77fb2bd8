package storetest

import (
	"fmt"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// hiddenHits is how many matches the scan cases store where the searcher
// may not look.
const hiddenHits = 4000

// seedHidden stores hiddenHits "needle" messages in a session of agent
// ops and one session of agent main with no match.
func seedHidden(t *testing.T, st domain.Store) {
	t.Helper()
	putSessions(t, st,
		domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s-main", Kind: domain.KindMain, UpdatedAt: 1},
		domain.Session{Key: "agent:ops:main", AgentID: "ops", SessionID: "s-ops", Kind: domain.KindMain, UpdatedAt: 2},
	)
	appendMsgs(t, st, "agent:main:main", "s-main", userMsg("haystack only", 1))
	msgs := make([]domain.Message, hiddenHits)
	for i := range msgs {
		msgs[i] = userMsg(fmt.Sprintf("needle %d", i), int64(i+10))
	}
	appendMsgs(t, st, "agent:ops:main", "s-ops", msgs...)
}

func searchPage(t *testing.T, st domain.Store, q domain.MessageSearch) domain.SearchPage {
	t.Helper()
	page, err := st.SearchMessages(ctxT(t), q)
	if err != nil {
		t.Fatalf("SearchMessages(%+v): %v", q, err)
	}
	return page
}

// testSearchScanScoped: a search scoped to sessions (by key, tree or
// agent) never reads the matches of sessions outside the scope: with
// thousands of them and none inside, it examines nothing.
func testSearchScanScoped(t *testing.T, st domain.Store) {
	seedHidden(t, st)
	for _, tc := range []struct {
		name string
		q    domain.MessageSearch
	}{
		{"keys", domain.MessageSearch{Keys: []string{"agent:main:main"}}},
		{"tree", domain.MessageSearch{TreeRoot: "agent:main:main", AgentIDs: []string{"main"}}},
		{"agent", domain.MessageSearch{AgentIDs: []string{"main"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Words, q.Limit, q.Scan = []string{"needle"}, 20, 1000
			page := searchPage(t, st, q)
			if len(page.Hits) != 0 || page.Scanned != 0 || page.Next != 0 {
				t.Errorf("scoped to main: %d hits, %d scanned, next %d; want none, 0 scanned (the %d hidden matches are not read)",
					len(page.Hits), page.Scanned, page.Next, hiddenHits)
			}
		})
	}
	// The operator's unscoped search finds them.
	if page := searchPage(t, st, domain.MessageSearch{Words: []string{"needle"}, Limit: 20, Scan: 1000}); len(page.Hits) != 20 || page.Scanned != 20 {
		t.Errorf("unscoped: %d hits, %d scanned; want 20, 20", len(page.Hits), page.Scanned)
	}
}

// testSearchScanCap: matches a filter drops count toward Scan; at the cap
// the page ends with Next, and following Next pages through every match
// with bounded work each.
func testSearchScanCap(t *testing.T, st domain.Store) {
	seedHidden(t, st)
	q := domain.MessageSearch{Words: []string{"needle"}, Kinds: []string{domain.KindGroup}, Limit: 20, Scan: 1000}
	page := searchPage(t, st, q)
	if len(page.Hits) != 0 || page.Scanned != 1000 || page.Next == 0 {
		t.Fatalf("first page: %d hits, %d scanned, next %d; want 0 hits, 1000 scanned, a next position", len(page.Hits), page.Scanned, page.Next)
	}
	pages, scanned := 1, page.Scanned
	for page.Next != 0 {
		if pages > hiddenHits/1000+1 {
			t.Fatal("paging does not end")
		}
		q.Before = page.Next
		page = searchPage(t, st, q)
		if page.Scanned > q.Scan {
			t.Fatalf("page %d scanned %d; want at most %d", pages, page.Scanned, q.Scan)
		}
		pages, scanned = pages+1, scanned+page.Scanned
	}
	if scanned != hiddenHits || len(page.Hits) != 0 {
		t.Errorf("paged through %d matches in %d pages, last %d hits; want %d, no hits", scanned, pages, len(page.Hits), hiddenHits)
	}
}
