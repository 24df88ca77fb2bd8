package storetest

// Search and paging cases. They are backend-neutral: they fix what a
// search returns (which messages, in which order, which snippet words),
// never how it is computed. A PostgreSQL store implements SearchMessages
// with a tsvector column (or table) filled from redact.SearchText in the
// same transaction as AppendMessages and passes them unchanged; Position
// may be any increasing value of its own (a bigserial), as long as newer
// messages get larger ones.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func search(t *testing.T, st domain.Store, q domain.MessageSearch) []domain.SearchHit {
	t.Helper()
	page, err := st.SearchMessages(ctxT(t), q)
	if err != nil {
		t.Fatalf("SearchMessages(%+v): %v", q, err)
	}
	return page.Hits
}

// hitKeys lists "key#seq" of hits, in order.
func hitKeys(hits []domain.SearchHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s#%d", h.SessionKey, h.Seq)
	}
	return out
}

// seedSearch stores three sessions of two agents, one a child of another,
// with a few messages each.
func seedSearch(t *testing.T, st domain.Store) {
	t.Helper()
	putSessions(t, st,
		domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s-main", Kind: domain.KindMain, UpdatedAt: 1},
		domain.Session{Key: "agent:main:subagent:c1", AgentID: "main", SessionID: "s-c1", Kind: domain.KindOther,
			SpawnedBy: "agent:main:main", UpdatedAt: 2},
		domain.Session{Key: "agent:ops:main", AgentID: "ops", SessionID: "s-ops", Kind: domain.KindMain, UpdatedAt: 3},
	)
	appendMsgs(t, st, "agent:main:main", "s-main",
		userMsg("the quick brown fox", 100),
		domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(
			domain.Block{Type: domain.BlockThinking, Thinking: "hidden zebra"},
			domain.TextBlock("Brown foxes are quick"),
		), Timestamp: 200},
		domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(
			domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "x", Arguments: []byte(`{"q":"quick brown"}`)}), Timestamp: 250},
	)
	appendMsgs(t, st, "agent:main:subagent:c1", "s-c1", userMsg("quick brown task for the child", 300))
	appendMsgs(t, st, "agent:ops:main", "s-ops", userMsg("ops saw a quick brown dog", 400))
}

func testSearchWords(t *testing.T, st domain.Store) {
	seedSearch(t, st)
	tests := []struct {
		name string
		q    domain.MessageSearch
		want []string
	}{
		{"all words, newest first", domain.MessageSearch{Words: []string{"quick", "brown"}, Limit: 10},
			[]string{"agent:ops:main#1", "agent:main:subagent:c1#1", "agent:main:main#2", "agent:main:main#1"}},
		{"case and order do not matter", domain.MessageSearch{Words: []string{"BROWN", "Quick"}, Limit: 10},
			[]string{"agent:ops:main#1", "agent:main:subagent:c1#1", "agent:main:main#2", "agent:main:main#1"}},
		// "foxes" is a different token from "fox": no stemming.
		{"whole tokens", domain.MessageSearch{Words: []string{"foxes"}, Limit: 10}, []string{"agent:main:main#2"}},
		{"AND, not OR", domain.MessageSearch{Words: []string{"quick", "dog"}, Limit: 10}, []string{"agent:ops:main#1"}},
		{"thinking is not indexed", domain.MessageSearch{Words: []string{"zebra"}, Limit: 10}, []string{}},
		{"tool arguments are not indexed", domain.MessageSearch{Words: []string{"quick", "brown"}, Keys: []string{"agent:main:main"}, Limit: 10},
			[]string{"agent:main:main#2", "agent:main:main#1"}},
		{"operator words are words", domain.MessageSearch{Words: []string{"OR", "NOT", `"`}, Limit: 10}, []string{}},
		{"keys", domain.MessageSearch{Words: []string{"quick"}, Keys: []string{"agent:main:main", "agent:ops:main"}, Limit: 10},
			[]string{"agent:ops:main#1", "agent:main:main#2", "agent:main:main#1"}},
		{"empty keys match nothing", domain.MessageSearch{Words: []string{"quick"}, Keys: []string{}, Limit: 10}, []string{}},
		{"agents", domain.MessageSearch{Words: []string{"quick"}, AgentIDs: []string{"ops"}, Limit: 10}, []string{"agent:ops:main#1"}},
		{"tree", domain.MessageSearch{Words: []string{"quick"}, TreeRoot: "agent:main:main", Limit: 10},
			[]string{"agent:main:subagent:c1#1", "agent:main:main#2", "agent:main:main#1"}},
		{"tree of a leaf", domain.MessageSearch{Words: []string{"quick"}, TreeRoot: "agent:main:subagent:c1", Limit: 10},
			[]string{"agent:main:subagent:c1#1"}},
		{"kinds", domain.MessageSearch{Words: []string{"quick"}, Kinds: []string{domain.KindOther}, Limit: 10},
			[]string{"agent:main:subagent:c1#1"}},
		{"since", domain.MessageSearch{Words: []string{"quick"}, Since: 300, Limit: 10},
			[]string{"agent:ops:main#1", "agent:main:subagent:c1#1"}},
		{"limit", domain.MessageSearch{Words: []string{"quick"}, Limit: 2},
			[]string{"agent:ops:main#1", "agent:main:subagent:c1#1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, hitKeys(search(t, st, tc.q))); d != "" {
				t.Errorf("hits (-want +got):\n%s", d)
			}
		})
	}
}

func testSearchHitFields(t *testing.T, st domain.Store) {
	putSessions(t, st, domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 1})
	stored := appendMsgs(t, st, "agent:main:main", "s1",
		userMsg("deploy with OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123 today", 42))
	hits := search(t, st, domain.MessageSearch{Words: []string{"deploy"}, Limit: 5})
	if len(hits) != 1 {
		t.Fatalf("hits = %+v, want one", hits)
	}
	h := hits[0]
	if h.SessionKey != "agent:main:main" || h.SessionID != "s1" || h.MessageID != stored[0].ID || h.Seq != 1 ||
		h.Role != domain.RoleUser || h.Timestamp != 42 {
		t.Errorf("hit = %+v, want the stored message %+v", h, stored[0])
	}
	// The index holds the masked text: the snippet shows what history
	// shows, and the secret's hidden middle is not searchable.
	if strings.Contains(h.Snippet, "ghijklmnop") || !strings.Contains(h.Snippet, "deploy") {
		t.Errorf("snippet = %q, want the masked text around the match", h.Snippet)
	}
	if got := search(t, st, domain.MessageSearch{Words: []string{"sk", "abcdefghijklmnopqrstuvwxyz0123"}, Limit: 5}); len(got) != 0 {
		t.Errorf("the raw secret matched: %+v", got)
	}
}

func testSearchCursor(t *testing.T, st domain.Store) {
	putSessions(t, st, domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 1})
	for i := range 7 {
		appendMsgs(t, st, "agent:main:main", "s1", userMsg(fmt.Sprintf("needle %d", i), int64(i+1)))
	}
	var got []string
	q := domain.MessageSearch{Words: []string{"needle"}, Limit: 3}
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatal("paging does not end")
		}
		hits := search(t, st, q)
		got = append(got, hitKeys(hits)...)
		if len(hits) < q.Limit {
			break
		}
		q.Before = hits[len(hits)-1].Position
		// A message stored between pages is newer than the cursor: it is
		// neither skipped into this walk nor repeated.
		appendMsgs(t, st, "agent:main:main", "s1", userMsg("needle late", 100))
	}
	want := []string{"agent:main:main#7", "agent:main:main#6", "agent:main:main#5", "agent:main:main#4",
		"agent:main:main#3", "agent:main:main#2", "agent:main:main#1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pages (-want +got):\n%s", d)
	}
}

func testSearchGenerations(t *testing.T, st domain.Store) {
	putSessions(t, st, domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "old", UpdatedAt: 1},
		domain.Session{Key: "agent:main:other", AgentID: "main", SessionID: "o1", UpdatedAt: 1})
	appendMsgs(t, st, "agent:main:main", "old", userMsg("apple before reset", 1))
	appendMsgs(t, st, "agent:main:other", "o1", userMsg("apple elsewhere", 2))
	// A reset: the row moves to a new generation; the old one is not searched.
	putSessions(t, st, domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "new", UpdatedAt: 3})
	appendMsgs(t, st, "agent:main:main", "new", userMsg("apple after reset", 3))
	if d := cmp.Diff([]string{"agent:main:main#2", "agent:main:other#1"},
		hitKeys(search(t, st, domain.MessageSearch{Words: []string{"apple"}, Limit: 10}))); d != "" {
		t.Errorf("after reset (-want +got):\n%s", d)
	}
	update(t, st, func(tx domain.Tx) error { return tx.DeleteSession("agent:main:other") })
	if d := cmp.Diff([]string{"agent:main:main#2"},
		hitKeys(search(t, st, domain.MessageSearch{Words: []string{"apple"}, Limit: 10}))); d != "" {
		t.Errorf("after delete (-want +got):\n%s", d)
	}
	// A deleted key used again starts clean.
	putSessions(t, st, domain.Session{Key: "agent:main:other", AgentID: "main", SessionID: "o2", UpdatedAt: 4})
	appendMsgs(t, st, "agent:main:other", "o2", userMsg("pear", 4))
	if got := search(t, st, domain.MessageSearch{Words: []string{"apple"}, Keys: []string{"agent:main:other"}, Limit: 10}); len(got) != 0 {
		t.Errorf("deleted messages still match: %+v", got)
	}
}

// testSearchRolledBack: index rows go with their transaction.
func testSearchRolledBack(t *testing.T, st domain.Store) {
	putSessions(t, st, domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 1})
	boom := errors.New("boom")
	err := st.Update(ctxT(t), func(tx domain.Tx) error {
		if _, err := tx.AppendMessages("agent:main:main", "s1", []domain.Message{userMsg("ghost words", 1)}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	appendMsgs(t, st, "agent:main:main", "s1", userMsg("real words", 2))
	if d := cmp.Diff([]string{"agent:main:main#1"},
		hitKeys(search(t, st, domain.MessageSearch{Words: []string{"words"}, Limit: 10}))); d != "" {
		t.Errorf("hits (-want +got):\n%s", d)
	}
	if got := search(t, st, domain.MessageSearch{Words: []string{"ghost"}, Limit: 10}); len(got) != 0 {
		t.Errorf("a rolled-back message matches: %+v", got)
	}
}

func testSearchInvalid(t *testing.T, st domain.Store) {
	for _, q := range []domain.MessageSearch{
		{Limit: 10},
		{Words: []string{"x"}},
		{Words: []string{"x"}, Limit: -1},
		{Words: []string{"x"}, Limit: 1, Before: -1},
	} {
		if _, err := st.SearchMessages(ctxT(t), q); err == nil {
			t.Errorf("SearchMessages(%+v) = nil error, want an error", q)
		}
	}
}

// testReadPaging: Offset and BeforeID page a transcript backwards.
func testReadPaging(t *testing.T, st domain.Store) {
	const key = "agent:main:main"
	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: "s1", UpdatedAt: 1})
	var stored []domain.Message
	for i := 1; i <= 6; i++ {
		stored = append(stored, appendMsgs(t, st, key, "s1", userMsg(fmt.Sprintf("m%d", i), int64(i)))...)
	}
	tests := []struct {
		name string
		q    domain.MessageQuery
		want []string
	}{
		{"offset", domain.MessageQuery{Limit: 2, Offset: 1}, []string{"m4", "m5"}},
		{"offset past the start", domain.MessageQuery{Limit: 2, Offset: 10}, []string{}},
		{"offset without limit", domain.MessageQuery{Offset: 4}, []string{"m1", "m2"}},
		{"before id", domain.MessageQuery{Limit: 2, BeforeID: stored[3].ID}, []string{"m2", "m3"}},
		{"before id and offset", domain.MessageQuery{Limit: 2, BeforeID: stored[3].ID, Offset: 1}, []string{"m1", "m2"}},
		{"before the first", domain.MessageQuery{Limit: 2, BeforeID: stored[0].ID}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, textsOf(readMsgs(t, st, key, tc.q))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, id := range []string{"ffffffff", "nothex!", stored[0].ID + "0"} {
		_, err := st.ReadMessages(ctxT(t), key, domain.MessageQuery{Limit: 2, BeforeID: id})
		if !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("BeforeID %q: err = %v, want ErrNotFound", id, err)
		}
	}
	// An id of another generation of the key is unknown in this one.
	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: "s2", UpdatedAt: 2})
	appendMsgs(t, st, key, "s2", userMsg("n1", 7))
	if _, err := st.ReadMessages(ctxT(t), key, domain.MessageQuery{Limit: 2, BeforeID: stored[2].ID}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("BeforeID of an old generation: err = %v, want ErrNotFound", err)
	}
	if _, err := st.ReadMessages(ctxT(t), key, domain.MessageQuery{Offset: -1}); err == nil {
		t.Error("negative offset: no error")
	}
}

// testListOffset: Offset skips rows of the list order.
func testListOffset(t *testing.T, st domain.Store) {
	for i := 1; i <= 5; i++ {
		putSessions(t, st, domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main", SessionID: fmt.Sprint(i), UpdatedAt: int64(i)})
	}
	keys := func(q domain.SessionQuery) []string {
		rows, err := st.ListSessions(ctxT(t), q)
		if err != nil {
			t.Fatalf("ListSessions(%+v): %v", q, err)
		}
		out := []string{}
		for _, r := range rows {
			out = append(out, r.Key)
		}
		return out
	}
	if d := cmp.Diff([]string{"agent:main:s3", "agent:main:s2"}, keys(domain.SessionQuery{Limit: 2, Offset: 2})); d != "" {
		t.Errorf("limit+offset (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"agent:main:s1"}, keys(domain.SessionQuery{Offset: 4})); d != "" {
		t.Errorf("offset only (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{}, keys(domain.SessionQuery{Limit: 2, Offset: 9})); d != "" {
		t.Errorf("offset past the end (-want +got):\n%s", d)
	}
	if _, err := st.ListSessions(ctxT(t), domain.SessionQuery{Offset: -1}); err == nil {
		t.Error("negative offset: no error")
	}
}
