package openclawimport

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// branchedState is a state directory OpenClaw 2026.9.6 wrote with a
// transcript branch: its gateway's sessions.rewind to a user message,
// then a new chat.send (testdata/openclaw-2026.9.6-branches/README.md).
var branchedState = filepath.Join("testdata", "openclaw-2026.9.6-branches")

const branchedKey = "agent:main:main"

// TestImportOpenClawBranches: a transcript with two branches imports as
// docs/openclaw-import.md says: only the active branch (the parentId
// chain from the last entry), so the message asked again is imported and
// the one it replaced is not; OpenClaw's leaf entry is neither a message
// nor a bad line.
func TestImportOpenClawBranches(t *testing.T) {
	ctx := context.Background()
	dir := copyState(t, branchedState)
	// The fixture holds what the test is about: an entry with two
	// children, one of them off the active branch, and OpenClaw's leaf
	// entry moving the active branch back.
	db, err := sql.Open("sqlite", "file:"+agentDBFile(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var sessionID string
	var forks, leaves int
	err = db.QueryRowContext(ctx, `SELECT json_extract(entry_json, '$.sessionId') FROM session_nodes WHERE session_key = ?`, branchedKey).Scan(&sessionID)
	if err == nil {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT json_extract(event_json, '$.parentId') AS p FROM transcript_events
			WHERE session_id = ? AND json_extract(event_json, '$.type') = 'message' GROUP BY p HAVING count(*) > 1)`, sessionID).Scan(&forks)
	}
	if err == nil {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM transcript_events WHERE session_id = ? AND json_extract(event_json, '$.type') = 'leaf'`, sessionID).Scan(&leaves)
	}
	db.Close()
	if err != nil || forks != 1 || leaves != 1 {
		t.Fatalf("the fixture's session %s has %d entries with two children and %d leaf entries (%v)", sessionID, forks, leaves, err)
	}
	st := openStore(t)
	sum, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 1 || sum.LinesSkipped != 0 {
		t.Fatalf("summary = %+v", sum)
	}
	row, err := st.GetSession(ctx, branchedKey)
	if err != nil || row.SessionID != sessionID {
		t.Fatalf("session row: %+v, %v (want sessionId %s)", row, err, sessionID)
	}
	msgs, err := st.ReadMessages(ctx, branchedKey, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user: first question", "assistant: ok", "user: second question, asked again", "assistant: ok"}
	got := brief(msgs)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("transcript = %q, want %q", got, want)
	}
	for _, m := range got {
		if m == "user: second question" {
			t.Errorf("the inactive branch's message was imported: %q", got)
		}
	}
	if sum.Messages != len(msgs) {
		t.Errorf("summary counts %d messages, the store holds %d", sum.Messages, len(msgs))
	}
	again, err := Import(ctx, st, dir, testOptions())
	if err != nil || again.Sessions != 0 || again.Messages != 0 {
		t.Fatalf("second import: %+v, %v", again, err)
	}
}
