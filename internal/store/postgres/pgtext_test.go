package postgres

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// replaced is what a text column of this store gives back for s.
func replaced(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }

// TestNUL: a model reply holding U+0000 is stored; text columns read it
// back with U+FFFD, bodies and session rows with the exact bytes.
func TestNUL(t *testing.T) {
	st := openFresh(t)
	defer st.Close()
	storetest.NUL(t, st, replaced)
}

// TestImportNUL: an imported transcript and run holding U+0000 do not
// abort the import (COPY binds the same values as the writes).
func TestImportNUL(t *testing.T) {
	st := openFresh(t)
	defer st.Close()
	const key = "agent:main:imported"
	b := bulk.Batch{
		Sessions: []domain.Session{{Key: key, AgentID: "main", SessionID: "s1", Label: "l\x00", UpdatedAt: 1}},
		Runs:     []domain.Run{{ID: "r1", SessionKey: key, SessionID: "s1", Status: domain.RunOK, Reply: "a\x00b"}},
		Ledger:   []domain.UsageEntry{{At: 1, SessionKey: key, AgentID: "main", Model: "m\x00", RunID: "r1"}},
	}
	b.Messages = append(b.Messages, bulk.Message{SessionKey: key, Message: domain.Message{
		Seq: 1, ID: "00000001", SessionID: "s1", Role: domain.RoleToolResult,
		Content: domain.TextContent("tool\x00output"), Timestamp: 1}})
	if err := st.Import(t.Context(), b); err != nil {
		t.Fatalf("Import: %v", err)
	}
	msgs, err := st.ReadMessages(t.Context(), key, domain.MessageQuery{})
	if err != nil || len(msgs) != 1 || msgs[0].Content.Text() != "tool\x00output" {
		t.Errorf("ReadMessages: %+v, %v; want the exact text", msgs, err)
	}
	run, err := st.GetRun(t.Context(), "r1")
	if err != nil || run.Reply != replaced("a\x00b") {
		t.Errorf("GetRun: reply %q, %v; want %q", run.Reply, err, replaced("a\x00b"))
	}
}
