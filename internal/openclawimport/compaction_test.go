package openclawimport

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// compactedState is a state directory OpenClaw 2026.9.6 wrote with a
// compaction in its transcript (testdata/openclaw-2026.9.6-compaction/README.md).
var compactedState = filepath.Join("testdata", "openclaw-2026.9.6-compaction")

const compactedKey = "agent:main:telegram:group:-100888"

// TestImportOpenClawCompaction: a transcript OpenClaw compacted imports
// as docs/openclaw-import.md says: its compaction entry is not a message
// and not a bad line, and the active branch runs through it, so the
// messages the summary replaced are imported too.
func TestImportOpenClawCompaction(t *testing.T) {
	ctx := context.Background()
	dir := copyState(t, compactedState)
	// The fixture holds what the test is about: a compaction entry
	// OpenClaw wrote.
	db, err := sql.Open("sqlite", "file:"+agentDBFile(dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var compactions int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM transcript_events WHERE json_extract(event_json, '$.type') = 'compaction'`).Scan(&compactions)
	db.Close()
	if err != nil || compactions == 0 {
		t.Fatalf("the fixture has %d compaction entries (%v)", compactions, err)
	}
	st := openStore(t)
	sum, err := Import(ctx, st, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 1 || sum.LinesSkipped != 0 {
		t.Fatalf("summary = %+v", sum)
	}
	msgs, err := st.ReadMessages(ctx, compactedKey, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	// The turn that overflowed, was compacted and retried is one user
	// message and its reply; the messages before the summary stay.
	want := []string{"user: hello there", "assistant: reply number 1", "user: tell me more", "assistant: reply number 2",
		"user: this turn will OVERFLOW", "assistant: reply number 5"}
	if got := brief(msgs); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("transcript = %q, want %q", got, want)
	}
	if sum.Messages != len(msgs) {
		t.Errorf("summary counts %d messages, the store holds %d", sum.Messages, len(msgs))
	}
	again, err := Import(ctx, st, dir, testOptions())
	if err != nil || again.Sessions != 0 || again.Messages != 0 {
		t.Fatalf("second import: %+v, %v", again, err)
	}
}
