package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// preparedFixture covers the body forms (plain JSON, S2, zstd), a masked
// credential in the index text, messages with no index text, and more
// messages than one INSERT stores.
func preparedFixture() []domain.Message {
	secret := "sk-" + strings.Repeat("k", 30)
	msgs := []domain.Message{
		{Role: domain.RoleUser, Content: domain.TextContent("needle with key " + secret), Timestamp: 1},
		{Role: domain.RoleAssistant, Content: domain.BlockContent(
			domain.Block{Type: domain.BlockThinking, Thinking: "hidden reasoning"},
			domain.TextBlock("needle answer"),
			domain.Block{Type: domain.BlockToolCall, ID: "call_1", Name: "exec", Arguments: json.RawMessage(`{"cmd":"ls"}`)}),
			Timestamp: 2, Usage: &domain.Usage{Input: 3, Output: 4, TotalTokens: 7, Cost: &domain.Cost{Total: 0.5}}, StopReason: "toolUse"},
		{Role: domain.RoleAssistant, Content: domain.BlockContent(
			domain.Block{Type: domain.BlockToolCall, ID: "call_2", Name: "exec", Arguments: json.RawMessage(`{}`)}), Timestamp: 3},
		{Role: domain.RoleToolResult, Content: domain.BlockContent(domain.TextBlock(strings.Repeat("long tool output needle ", 100))),
			Timestamp: 4, ToolCallID: "call_1", ToolName: "exec", IsError: domain.Bool(true)},
		{Role: domain.RoleAssistant, ErrorMessage: "401: Incorrect API key provided: " + secret, Timestamp: 5},
		{Role: domain.RoleUser, Content: domain.TextContent("x"), RunID: "run-1", Timestamp: 6},
	}
	for i := range 2 * insertRowsMax {
		msgs = append(msgs, domain.Message{Role: domain.RoleUser, Content: domain.TextContent(strings.Repeat("filler ", i)), Timestamp: int64(10 + i)})
	}
	return msgs
}

// storedRow is a messages row as stored, and the index row of its rowid.
type storedRow struct {
	Key, SessionID, ID, ParentID, Role, RunID string
	Seq, Timestamp                            int64
	Body                                      []byte
	Index                                     string
}

// appendBoth appends msgs to a fresh store, through AppendMessages or
// through PrepareMessages and AppendPrepared, twice (a second append
// continues the transcript), and returns the stored messages, rows and
// index rows.
func appendBoth(t *testing.T, msgs []domain.Message, viaPrepared bool) ([]domain.Message, []storedRow) {
	t.Helper()
	st := openTemp(t)
	st.newID = func() string { return "0badcafe" }
	const key, sid = "agent:main:main", "s1"
	var pm domain.PreparedMessages
	if viaPrepared {
		var err error
		if pm, err = st.PrepareMessages(msgs); err != nil {
			t.Fatalf("PrepareMessages: %v", err)
		}
		if pm.Len() != len(msgs) {
			t.Fatalf("Len = %d, want %d", pm.Len(), len(msgs))
		}
	}
	var out []domain.Message
	index := map[int64]string{}
	for range 2 {
		err := st.Update(t.Context(), func(dt domain.Tx) error {
			var got []domain.Message
			var err error
			if viaPrepared {
				got, err = dt.(domain.PreparedAppender).AppendPrepared(key, sid, pm)
			} else {
				got, err = dt.AppendMessages(key, sid, msgs)
			}
			// Every message has a row (its text may be none), naming its
			// id: the index catch-up uses it only for that message.
			for _, r := range dt.(*tx).index {
				if r.text != "" {
					index[r.rowid] = r.key + "|" + r.id + "|" + r.text
				} else if r.id == "" {
					index[r.rowid] = "no id"
				}
			}
			out = append(out, got...)
			return err
		})
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	rows, err := st.rdb.QueryContext(t.Context(), `SELECT m.rowid, g.session_key, m.seq, g.session_id, m.id, m.parent_id, m.role, m.run_id, m.timestamp, m.body
		FROM messages AS m JOIN message_gens AS g ON g.gen = m.gen ORDER BY m.rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var stored []storedRow
	for rows.Next() {
		var r storedRow
		var rowid int64
		if err := rows.Scan(&rowid, &r.Key, &r.Seq, &r.SessionID, &r.ID, &r.ParentID, &r.Role, &r.RunID, &r.Timestamp, &r.Body); err != nil {
			t.Fatal(err)
		}
		r.Index = index[rowid]
		stored = append(stored, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out, stored
}

func TestAppendPreparedMatchesAppendMessages(t *testing.T) {
	msgs := preparedFixture()
	wantOut, wantRows := appendBoth(t, msgs, false)
	gotOut, gotRows := appendBoth(t, msgs, true)
	if len(wantRows) != 2*len(msgs) {
		t.Fatalf("AppendMessages stored %d rows, want %d", len(wantRows), 2*len(msgs))
	}
	if diff := cmp.Diff(outlines(t, wantOut), outlines(t, gotOut)); diff != "" {
		t.Errorf("returned messages (-AppendMessages +AppendPrepared):\n%s", diff)
	}
	if diff := cmp.Diff(wantRows, gotRows); diff != "" {
		t.Errorf("stored rows (-AppendMessages +AppendPrepared):\n%s", diff)
	}
	// The fixture must exercise what it is for: masked index text, rows
	// without index text, and both compressed forms.
	var masked, unindexed, s2, zstd bool
	for _, r := range gotRows {
		masked = masked || strings.Contains(r.Index, "needle with key") && !strings.Contains(r.Index, "kkkkkkkkkkkkkkkkkkkk")
		unindexed = unindexed || r.Index == ""
		s2 = s2 || len(r.Body) > 0 && r.Body[0] == 0x02
		zstd = zstd || len(r.Body) > 0 && r.Body[0] == 0x01
	}
	if !masked || !unindexed || !s2 || !zstd {
		t.Errorf("fixture coverage: masked %v, unindexed %v, s2 %v, zstd %v; want all", masked, unindexed, s2, zstd)
	}
}

func TestAppendPreparedRefuses(t *testing.T) {
	st, other := openTemp(t), openTemp(t)
	if _, err := st.PrepareMessages([]domain.Message{{Role: domain.RoleUser}, {}}); domain.ErrorCode(err) != domain.CodeInvalid ||
		!strings.Contains(err.Error(), "messages[1].role") {
		t.Errorf("PrepareMessages without a role: %v, want ErrInvalid naming messages[1].role", err)
	}
	foreign, err := other.PrepareMessages([]domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(t.Context(), func(dt domain.Tx) error {
		_, err := dt.(domain.PreparedAppender).AppendPrepared("agent:main:main", "s1", foreign)
		return err
	})
	if !errors.Is(err, errForeignPrepared) {
		t.Errorf("AppendPrepared of another store's messages: %v, want errForeignPrepared", err)
	}
	mine, err := st.PrepareMessages([]domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(t.Context(), func(dt domain.Tx) error {
		_, err := dt.(domain.PreparedAppender).AppendPrepared("agent:main:main", "", mine)
		return err
	})
	if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), "sessionId") {
		t.Errorf("AppendPrepared without a session id: %v, want ErrInvalid naming sessionId", err)
	}
	if n, err := st.ReadMessages(t.Context(), "agent:main:main", domain.MessageQuery{SessionID: "s1"}); err != nil || len(n) != 0 {
		t.Errorf("after refused appends: %d messages, %v; want none", len(n), err)
	}
}

// outlines renders returned messages for comparing: their stored fields
// and JSON.
func outlines(t *testing.T, msgs []domain.Message) []string {
	t.Helper()
	out := make([]string, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf("%d %s %s %s %s %s", m.Seq, m.ID, m.ParentID, m.SessionID, m.RunID, js)
	}
	return out
}
