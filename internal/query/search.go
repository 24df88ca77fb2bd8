package query

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// searchWords splits a query into its words: runs of letters, digits and
// combining marks, which is what the index's tokenizer keeps. Repeats
// (case-insensitive) count once.
func searchWords(query string) []string {
	fields := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		w := strings.ToLower(f)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// cursorPrefix versions the cursor format.
const cursorPrefix = "s1:"

func encodeCursor(pos int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(pos, 10)))
}

func decodeCursor(c string) (int64, error) {
	bad := domain.Invalid("cursor is not valid (pass nextCursor from the previous page unchanged)")
	if err := api.SearchCursorChars.CheckChars(c); err != nil {
		return 0, err
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, bad
	}
	rest, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok {
		return 0, bad
	}
	pos, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || pos <= 0 {
		return 0, bad
	}
	return pos, nil
}

// searchQuery validates r into a store query (without the visibility
// scope).
func (r Reader) searchQuery(req api.SearchRequest) (domain.MessageSearch, error) {
	var q domain.MessageSearch
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return q, domain.Invalid("query required (1..%d characters of words to find)", api.SearchQueryChars.Max)
	}
	if err := api.SearchQueryChars.CheckChars(query); err != nil {
		return q, err
	}
	q.Words = searchWords(query)
	switch n := len(q.Words); {
	case n == 0:
		return q, domain.Invalid("query has no words: it needs letters or digits")
	case int64(n) > api.SearchQueryWords.Max:
		return q, domain.Invalid("query has too many words (%d; max %d)", n, api.SearchQueryWords.Max)
	}
	kinds, err := NormalizeKinds(req.Kinds)
	if err != nil {
		return q, err
	}
	q.Kinds = kinds
	if a := strings.TrimSpace(req.AgentID); a != "" {
		if err := api.AgentIDChars.CheckChars(a); err != nil {
			return q, err
		}
		q.AgentIDs = []string{sessionkey.NormalizeAgentID(a)}
	}
	if req.SinceMinutes != 0 {
		n, err := api.SearchSinceMinutes.Apply(int64(req.SinceMinutes))
		if err != nil {
			return q, err
		}
		q.Since = r.Now().UnixMilli() - n*60_000
	}
	limit := int64(req.Limit)
	if limit == 0 {
		limit = api.SearchLimit.Default
	}
	if limit, err = api.SearchLimit.Apply(limit); err != nil {
		return q, err
	}
	q.Limit = int(limit)
	if req.Cursor != "" {
		if q.Before, err = decodeCursor(req.Cursor); err != nil {
			return q, err
		}
	}
	return q, nil
}

// searchScan reads pages of q until limit+1 hits, the end of the matches
// or api.SearchScanMatches examined in all; with filter, a hit counts only
// when g may read its session. next > 0 is where the scan stopped short.
func (r Reader) searchScan(ctx context.Context, q domain.MessageSearch, limit int, filter bool, g Guard) (hits []domain.SearchHit, next int64, err error) {
	budget := int(api.SearchScanMatches.Max)
	allowed := map[string]bool{}
	for {
		q.Scan = budget
		page, err := r.Store.SearchMessages(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		budget -= page.Scanned
		for _, h := range page.Hits {
			if filter {
				ok, seen := allowed[h.SessionKey]
				if !seen {
					ok = g.Check(ctx, h.SessionKey, policy.ActionHistory) == nil
					allowed[h.SessionKey] = ok
				}
				if !ok {
					continue
				}
			}
			hits = append(hits, h)
		}
		switch {
		case len(hits) > limit:
			return hits, 0, nil
		case page.Next > 0:
			return hits, page.Next, nil
		case !filter || len(page.Hits) < q.Limit:
			return hits, 0, nil
		case budget <= 0:
			return hits, page.Hits[len(page.Hits)-1].Position, nil
		}
		q.Before = page.Hits[len(page.Hits)-1].Position
	}
}

// Search is sessions_search for the viewer g guards (the engine has
// gated the call): req's messages within what g may read, newest first;
// agent is the viewer's agent, for the keys shown. The scope goes to the store as
// filters (keys, tree, agents), so sessions outside it are never read;
// only an agent-to-agent allow list of patterns leaves a check per
// session, done here before anything is counted, within the same cap on
// matches examined.
func (r Reader) Search(ctx context.Context, g Guard, agent string, req api.SearchRequest) (api.SearchResult, error) {
	q, err := r.searchQuery(req)
	if err != nil {
		return api.SearchResult{}, err
	}
	limit := q.Limit
	// One hit past the page tells whether another page follows.
	q.Limit = limit + 1
	filter := false
	if !g.operator {
		sc := g.vis.ListScope()
		switch {
		case sc.SelfOnly:
			q.Keys = []string{g.key}
		case sc.TreeRoot != "":
			q.TreeRoot = sc.TreeRoot
		}
		if sc.AgentIDs != nil {
			if len(q.AgentIDs) > 0 && !slices.Contains(sc.AgentIDs, q.AgentIDs[0]) {
				return api.SearchResult{Results: []api.SearchHit{}}, nil
			}
			if len(q.AgentIDs) == 0 {
				q.AgentIDs = sc.AgentIDs
			}
		}
		filter = sc.Filter
	}
	hits, next, err := r.searchScan(ctx, q, limit, filter, g)
	if err != nil {
		return api.SearchResult{}, err
	}
	out := api.SearchResult{Results: []api.SearchHit{}}
	if len(hits) > limit {
		hits = hits[:limit]
		next = hits[limit-1].Position
	}
	if next > 0 {
		out.NextCursor = encodeCursor(next)
	}
	for _, h := range hits {
		out.Results = append(out.Results, api.SearchHit{
			SessionKey: r.Keys.Display(h.SessionKey, agent),
			SessionID:  h.SessionID,
			MessageID:  h.MessageID,
			Role:       h.Role,
			Timestamp:  h.Timestamp,
			Snippet:    h.Snippet,
		})
	}
	out.Count = len(out.Results)
	return out, nil
}
