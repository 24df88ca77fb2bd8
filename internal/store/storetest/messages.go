package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
)

func userMsg(text string, ts int64) domain.Message {
	return domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text), Timestamp: ts}
}

func textsOf(msgs []domain.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content.Text()
	}
	return out
}

func seqsOf(msgs []domain.Message) []int64 {
	out := make([]int64, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}

func readMsgs(t *testing.T, st domain.Store, key string, q domain.MessageQuery) []domain.Message {
	t.Helper()
	msgs, err := st.ReadMessages(ctxT(t), key, q)
	if err != nil {
		t.Fatalf("ReadMessages(%q, %+v): %v", key, q, err)
	}
	return msgs
}

func testAppendAssigns(t *testing.T, st domain.Store) {
	const key, sid = "agent:main:main", "s1"
	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1})
	first := userMsg("one", 1)
	first.Seq, first.ID, first.ParentID, first.SessionID = 99, "caller-id", "caller-parent", "caller-sid"
	first.RunID = "run-1"
	stored := appendMsgs(t, st, key, sid, first, userMsg("two", 2), userMsg("three", 3))
	stored = append(stored, appendMsgs(t, st, key, sid, userMsg("four", 4), userMsg("five", 5))...)

	// entryID is the 8-hex id format of OpenClaw transcript entries.
	entryID := regexp.MustCompile(`^[0-9a-f]{8}$`)
	if d := cmp.Diff([]int64{1, 2, 3, 4, 5}, seqsOf(stored)); d != "" {
		t.Errorf("assigned seqs (-want +got):\n%s", d)
	}
	seen := map[string]bool{}
	for i, m := range stored {
		if !entryID.MatchString(m.ID) {
			t.Errorf("message %d: ID %q is not 8 hex chars", i, m.ID)
		}
		if seen[m.ID] {
			t.Errorf("message %d: ID %q repeats", i, m.ID)
		}
		seen[m.ID] = true
		wantParent := ""
		if i > 0 {
			wantParent = stored[i-1].ID
		}
		if m.ParentID != wantParent {
			t.Errorf("message %d: ParentID %q, want the previous ID %q", i, m.ParentID, wantParent)
		}
		if m.SessionID != sid {
			t.Errorf("message %d: SessionID %q, want %q", i, m.SessionID, sid)
		}
	}
	if stored[0].RunID != "run-1" {
		t.Errorf("RunID = %q, want it kept", stored[0].RunID)
	}
	got := readMsgs(t, st, key, domain.MessageQuery{})
	if d := diff(stored, got); d != "" {
		t.Errorf("ReadMessages returns what AppendMessages stored (-want +got):\n%s", d)
	}

	// AppendMessages leaves the session row alone.
	sess, err := st.GetSession(ctxT(t), key)
	if err != nil || sess.UpdatedAt != 1 {
		t.Errorf("session row after appends = %+v, %v; want it untouched", sess, err)
	}
	// Seq is per key: another key starts at 1.
	other := appendMsgs(t, st, "agent:main:other", "s9", userMsg("x", 1))
	if other[0].Seq != 1 || other[0].ParentID != "" {
		t.Errorf("first message of another key: seq %d parent %q, want 1 and none", other[0].Seq, other[0].ParentID)
	}
	// No messages: nothing stored, no error.
	if none := appendMsgs(t, st, key, sid); len(none) != 0 {
		t.Errorf("appending nothing returned %d messages", len(none))
	}
}

func testAppendInvalid(t *testing.T, st domain.Store) {
	ctx := ctxT(t)
	tests := []struct {
		name     string
		key, sid string
		msgs     []domain.Message
	}{
		{"EmptyKey", "", "s1", []domain.Message{userMsg("x", 1)}},
		{"EmptySessionID", "agent:main:main", "", []domain.Message{userMsg("x", 1)}},
		{"EmptyRole", "agent:main:main", "s1", []domain.Message{{Content: domain.TextContent("x")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := st.Update(ctx, func(tx domain.Tx) error {
				_, err := tx.AppendMessages(tc.key, tc.sid, tc.msgs)
				return err
			})
			if err == nil {
				t.Fatal("AppendMessages: got nil error")
			}
		})
	}
	if _, err := st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{Limit: -1}); err == nil {
		t.Error("ReadMessages with limit -1: got nil error")
	}
}

func testReadTail(t *testing.T, st domain.Store) {
	const key, sid = "agent:main:main", "s1"
	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1})
	roles := []string{domain.RoleUser, domain.RoleAssistant, domain.RoleToolResult, domain.RoleAssistant,
		domain.RoleUser, domain.RoleAssistant, domain.RoleToolResult, domain.RoleAssistant}
	var msgs []domain.Message
	for i, role := range roles {
		msgs = append(msgs, domain.Message{Role: role, Content: domain.TextContent(fmt.Sprintf("m%d", i+1)), Timestamp: int64(i + 1)})
	}
	appendMsgs(t, st, key, sid, msgs...)

	tests := []struct {
		name string
		q    domain.MessageQuery
		want []string
	}{
		{"All", domain.MessageQuery{}, []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}},
		{"Tail", domain.MessageQuery{Limit: 3}, []string{"m6", "m7", "m8"}},
		{"LimitAboveCount", domain.MessageQuery{Limit: 100}, []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}},
		{"BeforeSeq", domain.MessageQuery{BeforeSeq: 6, Limit: 2}, []string{"m4", "m5"}},
		{"BeforeSeqAll", domain.MessageQuery{BeforeSeq: 3}, []string{"m1", "m2"}},
		{"BeforeFirst", domain.MessageQuery{BeforeSeq: 1}, []string{}},
		{"ExcludeRolesBeforeLimit", domain.MessageQuery{Limit: 3, ExcludeRoles: []string{domain.RoleToolResult}}, []string{"m5", "m6", "m8"}},
		{"ExcludeTwoRoles", domain.MessageQuery{ExcludeRoles: []string{domain.RoleToolResult, domain.RoleAssistant}}, []string{"m1", "m5"}},
		{"ExcludeWithBefore", domain.MessageQuery{BeforeSeq: 5, Limit: 2, ExcludeRoles: []string{domain.RoleAssistant}}, []string{"m1", "m3"}},
		{"ExplicitSessionID", domain.MessageQuery{SessionID: sid, Limit: 1}, []string{"m8"}},
		{"UnknownSessionID", domain.MessageQuery{SessionID: "nope"}, []string{}},
		{"Oldest", domain.MessageQuery{Limit: 3, Oldest: true}, []string{"m1", "m2", "m3"}},
		{"OldestExcludeRoles", domain.MessageQuery{Limit: 2, Oldest: true, ExcludeRoles: []string{domain.RoleUser}}, []string{"m2", "m3"}},
		{"OldestBeforeSeq", domain.MessageQuery{Limit: 2, Oldest: true, BeforeSeq: 2}, []string{"m1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readMsgs(t, st, key, tc.q)
			if d := cmp.Diff(tc.want, textsOf(got)); d != "" {
				t.Errorf("ReadMessages(%+v) (-want +got):\n%s", tc.q, d)
			}
		})
	}
	// A page's Seq is the cursor of the next one.
	var paged []string
	q := domain.MessageQuery{Limit: 3}
	for {
		page := readMsgs(t, st, key, q)
		if len(page) == 0 {
			break
		}
		paged = append(textsOf(page), paged...)
		q.BeforeSeq = page[0].Seq
	}
	if d := cmp.Diff(textsOf(msgs), paged); d != "" {
		t.Errorf("paging backwards with BeforeSeq (-want +got):\n%s", d)
	}
}

func testReadGenerations(t *testing.T, st domain.Store) {
	const key = "agent:main:main"
	// Messages under a key without a row: reads of "the current
	// generation" find none; an explicit SessionID finds them.
	appendMsgs(t, st, key, "s1", userMsg("old-1", 1), userMsg("old-2", 2))
	if got := readMsgs(t, st, key, domain.MessageQuery{}); len(got) != 0 {
		t.Errorf("ReadMessages without a session row = %v, want none", textsOf(got))
	}
	if got := readMsgs(t, st, key, domain.MessageQuery{SessionID: "s1"}); len(got) != 2 {
		t.Errorf("ReadMessages(SessionID s1) without a row = %v, want 2 messages", textsOf(got))
	}

	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: "s1", UpdatedAt: 1})
	if d := cmp.Diff([]string{"old-1", "old-2"}, textsOf(readMsgs(t, st, key, domain.MessageQuery{}))); d != "" {
		t.Errorf("current generation s1 (-want +got):\n%s", d)
	}

	// A reset: new sessionId on the row, then the new transcript.
	var fresh []domain.Message
	update(t, st, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s2", UpdatedAt: 2}); err != nil {
			return err
		}
		var err error
		fresh, err = tx.AppendMessages(key, "s2", []domain.Message{userMsg("new-1", 3), userMsg("new-2", 4)})
		return err
	})
	if d := cmp.Diff([]int64{3, 4}, seqsOf(fresh)); d != "" {
		t.Errorf("seq keeps growing across generations of a key (-want +got):\n%s", d)
	}
	if fresh[0].ParentID != "" {
		t.Errorf("first message of a new generation has ParentID %q, want none", fresh[0].ParentID)
	}
	if fresh[1].ParentID != fresh[0].ID {
		t.Errorf("second message of s2: ParentID %q, want %q", fresh[1].ParentID, fresh[0].ID)
	}
	tests := []struct {
		q    domain.MessageQuery
		want []string
	}{
		{domain.MessageQuery{}, []string{"new-1", "new-2"}},
		{domain.MessageQuery{Limit: 10}, []string{"new-1", "new-2"}},
		{domain.MessageQuery{SessionID: "s2"}, []string{"new-1", "new-2"}},
		{domain.MessageQuery{SessionID: "s1"}, []string{"old-1", "old-2"}},
		{domain.MessageQuery{SessionID: "s1", Limit: 1}, []string{"old-2"}},
	}
	for _, tc := range tests {
		if d := cmp.Diff(tc.want, textsOf(readMsgs(t, st, key, tc.q))); d != "" {
			t.Errorf("ReadMessages(%+v) (-want +got):\n%s", tc.q, d)
		}
	}
	// An append to the old generation chains to that generation's last ID.
	late := appendMsgs(t, st, key, "s1", userMsg("old-3", 5))
	olds := readMsgs(t, st, key, domain.MessageQuery{SessionID: "s1"})
	if late[0].Seq != 5 || late[0].ParentID != olds[1].ID {
		t.Errorf("append to s1 after s2: seq %d parent %q, want 5 and %q", late[0].Seq, late[0].ParentID, olds[1].ID)
	}

	// Tails name their generation; the key's seqs interleave across them.
	if tr, ok := st.(domain.TailsReader); ok {
		tails, err := tr.ReadTails(t.Context(), []domain.Generation{{Key: key, SessionID: "s1"}, {Key: key}, {Key: key, SessionID: "s9"}}, 2, nil)
		if err != nil {
			t.Fatalf("ReadTails: %v", err)
		}
		var got [][]string
		for _, tail := range tails {
			got = append(got, textsOf(tail))
		}
		if d := cmp.Diff([][]string{{"old-2", "old-3"}, {"new-1", "new-2"}, {}}, got); d != "" {
			t.Errorf("ReadTails of s1, the current generation and none (-want +got):\n%s", d)
		}
	}
	// A store that copies (switchboard migrate) scans the key in seq
	// order whatever the generation.
	if sc, ok := st.(messageScanner); ok {
		var got []string
		afterKey, afterSeq := "", int64(0)
		for {
			batch, err := sc.ScanMessages(t.Context(), afterKey, afterSeq, 2)
			if err != nil {
				t.Fatalf("ScanMessages: %v", err)
			}
			if len(batch) == 0 {
				break
			}
			for _, m := range batch {
				got = append(got, fmt.Sprintf("%d %s %s", m.Seq, m.SessionID, m.Content.Text()))
			}
			last := batch[len(batch)-1]
			afterKey, afterSeq = last.SessionKey, last.Seq
		}
		want := []string{"1 s1 old-1", "2 s1 old-2", "3 s2 new-1", "4 s2 new-2", "5 s1 old-3"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("ScanMessages in batches of 2 (-want +got):\n%s", d)
		}
	}
}

// messageScanner is the scan of bulk.Store (internal/store/bulk), which
// both stores implement.
type messageScanner interface {
	ScanMessages(ctx context.Context, afterKey string, afterSeq int64, limit int) ([]bulk.Message, error)
}

// messageFixtures covers every field and content shape of the raw
// transcript format.
func messageFixtures() []domain.Message {
	usage := &domain.Usage{Input: 1200, Output: 340, CacheRead: 1000, CacheWrite: 200, TotalTokens: 1540,
		Cost: &domain.Cost{Input: 0.0012, Output: 0.0034, CacheRead: 0.0001, CacheWrite: 0.0002, Total: 0.0049}}
	return []domain.Message{
		{
			Role: domain.RoleUser, Content: domain.TextContent("hello, ünïcode ✓ and \"quotes\"\nnew line"), Timestamp: 1_700_000_000_000,
			Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, OriginSessionID: "os", SourceSessionKey: "agent:ops:main",
				SourceChannel: "discord", SourceTool: "sessions_send", SourceRunID: "run-src"},
			RunID: "run-1",
		},
		{
			Role: domain.RoleAssistant, Timestamp: 1_700_000_000_001, RunID: "run-1",
			Content: domain.BlockContent(
				domain.Block{Type: domain.BlockThinking, Thinking: "let me think", ThinkingSignature: "sig-think"},
				domain.Block{Type: domain.BlockText, Text: "calling a tool", TextSignature: "sig-text"},
				domain.Block{Type: domain.BlockToolCall, ID: "call_1", Name: "sessions_list",
					Arguments: json.RawMessage(`{"limit":5,"kinds":["main","group"],"nested":{"deep":[1,2.5,null,true]},"s":"ü"}`)},
			),
			API: "openai-completions", Provider: "openai", Model: "gpt-4.1-mini", Usage: usage, StopReason: domain.StopReasonToolUse,
		},
		{
			Role: domain.RoleToolResult, Timestamp: 1_700_000_000_002, ToolCallID: "call_1", ToolName: "sessions_list", IsError: domain.Bool(false),
			Content: domain.BlockContent(
				domain.TextBlock(`{"count":0,"sessions":[]}`),
				domain.Block{Type: domain.BlockImage, Data: "iVBORw0KGgo=", MimeType: "image/png"},
				domain.Block{Type: domain.BlockImage, MimeType: "image/jpeg", Omitted: true, Bytes: 123456},
			),
			Details: json.RawMessage(`{"count":0,"sessions":[]}`),
		},
		{
			Role: domain.RoleToolResult, Timestamp: 1_700_000_000_003, ToolCallID: "call_2", ToolName: "sessions_send", IsError: domain.Bool(true),
			Content: domain.TextContent("forbidden"),
		},
		{
			Role: domain.RoleAssistant, Timestamp: 1_700_000_000_004, Content: domain.BlockContent(),
			StopReason: domain.StopReasonError, ErrorMessage: "upstream 500", Provider: "anthropic", Model: "claude-sonnet-4-5",
		},
		{
			Role: domain.RoleUser, Timestamp: 1_700_000_000_005, Kind: "announce",
			Content:    domain.TextContent(strings.Repeat("long text ", 20_000)),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceInternalSystem},
		},
		{Role: domain.RoleAssistant, Timestamp: 1_700_000_000_006, Content: domain.BlockContent(domain.TextBlock(""))},
	}
}

func testMessageJSONRoundTrip(t *testing.T, st domain.Store) {
	const key, sid = "agent:main:main", "s1"
	putSessions(t, st, domain.Session{Key: key, AgentID: "main", SessionID: sid, UpdatedAt: 1})
	in := messageFixtures()
	stored := appendMsgs(t, st, key, sid, in...)
	got := readMsgs(t, st, key, domain.MessageQuery{})
	if len(got) != len(in) {
		t.Fatalf("read %d messages, want %d", len(got), len(in))
	}
	for i := range in {
		want := in[i]
		want.Seq, want.ID, want.ParentID, want.SessionID = stored[i].Seq, stored[i].ID, stored[i].ParentID, sid
		if d := diff(want, stored[i]); d != "" {
			t.Errorf("message %d as returned by AppendMessages (-want +got):\n%s", i, d)
		}
		if d := diff(want, got[i]); d != "" {
			t.Errorf("message %d as read back (-want +got):\n%s", i, d)
		}
		if got[i].Content.IsPlain() != in[i].Content.IsPlain() {
			t.Errorf("message %d: IsPlain %v, want %v", i, got[i].Content.IsPlain(), in[i].Content.IsPlain())
		}
		// The raw transcript JSON is what OpenClaw clients see.
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(got[i])
		if d := diff(json.RawMessage(wantJSON), json.RawMessage(gotJSON)); d != "" {
			t.Errorf("message %d JSON (-want +got):\n%s", i, d)
		}
	}
	if got[2].IsError == nil || *got[2].IsError {
		t.Errorf("isError false must stay a present false, got %v", got[2].IsError)
	}
}

func testDeleteSession(t *testing.T, st domain.Store) {
	const key = "agent:main:main"
	ctx := ctxT(t)
	putSessions(t, st,
		domain.Session{Key: key, AgentID: "main", SessionID: "s2", UpdatedAt: 1},
		domain.Session{Key: "agent:main:keep", AgentID: "main", SessionID: "k1", UpdatedAt: 1},
	)
	appendMsgs(t, st, key, "s1", userMsg("a", 1))
	appendMsgs(t, st, key, "s2", userMsg("b", 2))
	appendMsgs(t, st, "agent:main:keep", "k1", userMsg("kept", 3))

	update(t, st, func(tx domain.Tx) error { return tx.DeleteSession(key) })
	_, err := st.GetSession(ctx, key)
	requireErrorIs(t, err, domain.ErrNotFound, "GetSession after DeleteSession")
	for _, sid := range []string{"s1", "s2"} {
		if got := readMsgs(t, st, key, domain.MessageQuery{SessionID: sid}); len(got) != 0 {
			t.Errorf("messages of generation %s after DeleteSession: %v", sid, textsOf(got))
		}
	}
	if got := readMsgs(t, st, "agent:main:keep", domain.MessageQuery{}); len(got) != 1 {
		t.Errorf("another key's messages after DeleteSession: %v, want [kept]", textsOf(got))
	}
	if err := st.Update(ctx, func(tx domain.Tx) error { return tx.DeleteSession("agent:main:never") }); err != nil {
		t.Errorf("DeleteSession of a key without a row: %v", err)
	}
	// A deleted session rolled back with its fn stays.
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.DeleteSession("agent:main:keep"); err != nil {
			return err
		}
		return errNope
	})
	requireErrorIs(t, err, errNope, "Update returning an error")
	if _, err := st.GetSession(ctx, "agent:main:keep"); err != nil {
		t.Errorf("session deleted by a failed Update: %v", err)
	}
	if got := readMsgs(t, st, "agent:main:keep", domain.MessageQuery{}); len(got) != 1 {
		t.Errorf("messages deleted by a failed Update: %v", textsOf(got))
	}
}
