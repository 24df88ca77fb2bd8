package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// searchSessions lists the distinct session keys of a search's results.
func searchSessions(t *testing.T, h *harness, p api.Principal, r api.SearchRequest) []string {
	t.Helper()
	res, err := h.e.Search(context.Background(), p, r)
	if err != nil {
		t.Fatalf("Search(%+v): %v", r, err)
	}
	if res.Count != len(res.Results) {
		t.Errorf("count %d != %d results", res.Count, len(res.Results))
	}
	var keys []string
	for _, hit := range res.Results {
		if !slices.Contains(keys, hit.SessionKey) {
			keys = append(keys, hit.SessionKey)
		}
	}
	slices.Sort(keys)
	return keys
}

// TestSearchVisibility: a requester finds messages only in sessions its
// sessions_history may read, under every visibility mode.
func TestSearchVisibility(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*config.Config)
		want   []string
	}{
		{"tree", nil, []string{"agent:main:subagent:kid", "main"}},
		{"self", func(c *config.Config) { c.Tools.Sessions.Visibility = "self" }, []string{"main"}},
		{"agent", func(c *config.Config) { c.Tools.Sessions.Visibility = "agent" },
			[]string{"agent:main:research", "agent:main:subagent:kid", "main"}},
		{"all without agent-to-agent", func(c *config.Config) { c.Tools.Sessions.Visibility = "all" },
			[]string{"agent:main:research", "agent:main:subagent:kid", "main"}},
		{"all with an allow list (filtered)", func(c *config.Config) {
			c.Tools.Sessions.Visibility = "all"
			c.Tools.AgentToAgent.Enabled = true
			c.Tools.AgentToAgent.Allow = []string{"main", "ops"}
		}, []string{"agent:main:research", "agent:main:subagent:kid", "agent:ops:main", "main"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, func(c *config.Config) {
				c.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "ops"}, {ID: "dev"}}
				if tc.mutate != nil {
					tc.mutate(c)
				}
			})
			for _, k := range []string{"agent:main:main", "agent:main:research", "agent:ops:main", "agent:dev:main"} {
				h.chat(k, "alpha bravo from "+k)
			}
			kid := "agent:main:subagent:kid"
			if err := h.st.Update(context.Background(), func(tx domain.Tx) error {
				if err := tx.PutSession(domain.Session{Key: kid, AgentID: "main", SessionID: "kid-1", Kind: domain.KindOther,
					SpawnedBy: "agent:main:main", UpdatedAt: 1}); err != nil {
					return err
				}
				_, err := tx.AppendMessages(kid, "kid-1", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("alpha bravo kid"), Timestamp: 1}})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			asMain := api.Operator().ActingAs("agent:main:main")
			got := searchSessions(t, h, asMain, api.SearchRequest{Query: "alpha bravo", Limit: 100})
			if !slices.Equal(got, tc.want) {
				t.Errorf("as main: sessions %q, want %q", got, tc.want)
			}
			// Paging one hit at a time never shows an invisible session
			// either, and ends.
			var paged []string
			r := api.SearchRequest{Query: "alpha", Limit: 1}
			for range 50 {
				res, err := h.e.Search(context.Background(), asMain, r)
				if err != nil {
					t.Fatal(err)
				}
				for _, hit := range res.Results {
					if !slices.Contains(paged, hit.SessionKey) {
						paged = append(paged, hit.SessionKey)
					}
				}
				if res.NextCursor == "" {
					break
				}
				r.Cursor = res.NextCursor
			}
			slices.Sort(paged)
			if !slices.Equal(paged, tc.want) {
				t.Errorf("paged: sessions %q, want %q", paged, tc.want)
			}
			if got := searchSessions(t, h, api.Operator(), api.SearchRequest{Query: "alpha bravo", Limit: 100}); len(got) != 5 {
				t.Errorf("operator sees %q, want all five sessions", got)
			}
		})
	}
}

func TestSearchFiltersAndInput(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "ops"}} })
	h.chat("agent:main:main", "deploy the API_KEY=abcdefghijklmnopqrstuvwxyz123 build")
	h.chat("agent:ops:main", "deploy ops")
	op := api.Operator()
	res, err := h.e.Search(context.Background(), op, api.SearchRequest{Query: "deploy build", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 2 { // the user message and its echo
		t.Fatalf("results = %+v, want the message and its echo", res.Results)
	}
	for _, hit := range res.Results {
		if strings.Contains(hit.Snippet, "ghijklmnopqrs") || hit.MessageID == "" || hit.SessionID == "" {
			t.Errorf("hit %+v: want a masked snippet, a message id and a session id", hit)
		}
	}
	if got := searchSessions(t, h, op, api.SearchRequest{Query: "deploy", AgentID: "OPS"}); !slices.Equal(got, []string{"agent:ops:main"}) {
		t.Errorf("agentId ops: %q", got)
	}
	if got := searchSessions(t, h, op, api.SearchRequest{Query: "deploy", Kinds: []string{"group"}}); len(got) != 0 {
		t.Errorf("kinds group: %q", got)
	}
	if got := searchSessions(t, h, op, api.SearchRequest{Query: "deploy", SinceMinutes: 5}); len(got) != 2 {
		t.Errorf("sinceMinutes 5: %q", got)
	}
	// A requester asking for another agent's sessions gets nothing, not a count.
	if got := searchSessions(t, h, op.ActingAs("agent:main:main"), api.SearchRequest{Query: "deploy", AgentID: "ops"}); len(got) != 0 {
		t.Errorf("main asking for ops: %q", got)
	}
	// The history of a hit starts right before it (messageId pages history).
	hit := res.Results[0]
	hist, err := h.e.History(context.Background(), op, api.HistoryRequest{SessionKey: hit.SessionKey, BeforeMessageID: hit.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Messages) != 1 || hist.Messages[0].ID != res.Results[1].MessageID {
		t.Errorf("history before the newest hit = %+v, want the older hit", hist.Messages)
	}

	bad := []struct {
		r    api.SearchRequest
		want string
	}{
		{api.SearchRequest{}, "query required"},
		{api.SearchRequest{Query: " !!! "}, "query has no words"},
		{api.SearchRequest{Query: strings.Repeat("a", 501)}, "query is too long (501 characters; max 500)"},
		{api.SearchRequest{Query: "x", SinceMinutes: -1}, "sinceMinutes must be at least 1"},
		{api.SearchRequest{Query: "x", Limit: -1}, "limit must be at least 1"},
		{api.SearchRequest{Query: "x", Cursor: "not-a-cursor"}, "cursor is not valid"},
		{api.SearchRequest{Query: "x", Kinds: []string{"planet"}}, `kinds: unknown kind "planet"`},
	}
	for _, b := range bad {
		_, err := h.e.Search(context.Background(), op, b.r)
		if err == nil || !strings.Contains(domain.ErrorMessage(err), strings.Split(b.want, " (")[0]) {
			t.Errorf("Search(%+v) = %v, want %q", b.r, err, b.want)
		}
	}
	var words []string
	for i := range 17 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	if _, err := h.e.Search(context.Background(), op, api.SearchRequest{Query: strings.Join(words, " ")}); err == nil ||
		!strings.Contains(err.Error(), "query has too many words (17; max 16)") {
		t.Errorf("17 words: %v", err)
	}
	res, err = h.e.Search(context.Background(), op, api.SearchRequest{Query: "deploy", Limit: 1000})
	if err != nil || res.Count != 4 {
		t.Errorf("limit 1000 (clamped to 100): %+v, %v", res, err)
	}
}

// TestHistoryPagingWhileAppending: paging backwards with
// nextBeforeMessageId while messages keep arriving returns every message
// that existed when paging began exactly once, in order.
func TestHistoryPagingWhileAppending(t *testing.T) {
	h := newHarness(t, nil, nil)
	const key, sid = "agent:main:main", "s-page"
	ctx := context.Background()
	appendN := func(from, n int) error {
		return h.st.Update(ctx, func(tx domain.Tx) error {
			if from == 0 {
				if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1}); err != nil {
					return err
				}
			}
			var msgs []domain.Message
			for i := from; i < from+n; i++ {
				msgs = append(msgs, domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("m%03d", i)), Timestamp: int64(i + 1)})
			}
			_, err := tx.AppendMessages(key, sid, msgs)
			return err
		})
	}
	if err := appendN(0, 40); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 40; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := appendN(i, 1); err != nil {
				errs <- err
				return
			}
		}
	}()
	first, err := h.e.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: key, Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	newest := first.Messages[len(first.Messages)-1].Content.Text()
	var got []string
	page := first
	for range 100 {
		var texts []string
		for _, m := range page.Messages {
			texts = append(texts, m.Content.Text())
		}
		got = append(texts, got...)
		if !page.HasMore {
			break
		}
		page, err = h.e.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: key, Limit: 7, BeforeMessageID: page.NextBeforeMessageID})
		if err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	var n int
	fmt.Sscanf(newest, "m%03d", &n)
	if len(got) != n+1 {
		t.Fatalf("paged %d messages, want %d (m000..%s)", len(got), n+1, newest)
	}
	for i, s := range got {
		if want := fmt.Sprintf("m%03d", i); s != want {
			t.Fatalf("message %d = %s, want %s (skipped or repeated)", i, s, want)
		}
	}
	// Ids are stable: the same message has the same id on every read.
	again, err := h.e.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: key, Limit: 1, BeforeMessageID: first.Messages[1].ID})
	if err != nil || len(again.Messages) != 1 || again.Messages[0].ID != first.Messages[0].ID {
		t.Errorf("re-read before %s = %+v, %v; want %s", first.Messages[1].ID, again.Messages, err, first.Messages[0].ID)
	}
	// Offset counts from the newest (or from beforeMessageId).
	off, err := h.e.History(ctx, api.Operator(), api.HistoryRequest{SessionKey: key, Limit: 2, Offset: 1, BeforeMessageID: first.Messages[3].ID})
	if err != nil || len(off.Messages) != 2 || off.Messages[1].ID != first.Messages[1].ID {
		t.Errorf("offset 1 before message 3 = %+v, %v; want messages 0..1 of the first page", off.Messages, err)
	}
	for _, tc := range []struct {
		r    api.HistoryRequest
		want string
	}{
		{api.HistoryRequest{SessionKey: key, BeforeMessageID: "ffffffff"}, `beforeMessageId "ffffffff" is not a message of session`},
		{api.HistoryRequest{SessionKey: key, Offset: -1}, "offset must be at least 0 (got -1)"},
		{api.HistoryRequest{SessionKey: key, Offset: 2_000_000}, "offset must be at most 1000000"},
		{api.HistoryRequest{SessionKey: key, BeforeMessageID: strings.Repeat("a", 65)}, "beforeMessageId is too long"},
	} {
		if _, err := h.e.History(ctx, api.Operator(), tc.r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("History(%+v) = %v, want %q", tc.r, err, tc.want)
		}
	}
}

func TestListOffsetPages(t *testing.T) {
	h := newHarness(t, nil, nil)
	for i := range 5 {
		h.chat(fmt.Sprintf("agent:main:s%d", i), "hi")
	}
	var keys []string
	r := api.ListRequest{Limit: 2}
	for range 10 {
		res, err := h.e.ListSessions(context.Background(), api.Operator(), r)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Sessions {
			keys = append(keys, s.Key)
		}
		if !res.HasMore {
			if res.NextOffset != nil {
				t.Errorf("last page has nextOffset %d", *res.NextOffset)
			}
			break
		}
		if res.NextOffset == nil || *res.NextOffset != r.Offset+2 {
			t.Fatalf("page at %d: nextOffset %v", r.Offset, res.NextOffset)
		}
		r.Offset = *res.NextOffset
	}
	if len(keys) != 5 {
		t.Errorf("paged %q, want 5 sessions", keys)
	}
	if _, err := h.e.ListSessions(context.Background(), api.Operator(), api.ListRequest{Offset: -1}); err == nil ||
		!strings.Contains(err.Error(), "offset must be at least 0") {
		t.Errorf("offset -1: %v", err)
	}
}
