package engine

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runs"
)

// TestChatQuickTurns: a chat turn on an existing session is written in one
// transaction, starting from the session row the chat read; a "/reset
// <text>" turn reads the row again after its reset, so it too is quick,
// in the new transcript, and no answer is thrown away.
func TestChatQuickTurns(t *testing.T) {
	// The script model answers at once; a long grace keeps a loaded
	// machine from turning a fold into a claim.
	h := newHarnessOpts(t, nil, nil, func(o *Options) { o.QuickGrace = time.Minute })
	const key = "agent:main:quick"
	// A turn is quick only on an idle lane: the previous turn's executor
	// may still be on its way out when its waiter returns.
	idle := func() { h.waitFor("the session's lane idle", func() bool { return h.e.rt.LaneIdle(key) }) }
	h.chat(key, "one") // creates the session: the ordinary way
	if q := h.e.rt.QuickTurns(); q != (runs.QuickStats{}) {
		t.Fatalf("quick turns after the session's first = %+v, want none", q)
	}
	idle()
	two := h.chat(key, "two")
	if q := h.e.rt.QuickTurns(); q != (runs.QuickStats{Folded: 1}) {
		t.Fatalf("quick turns = %+v, want one folded", q)
	}
	idle()
	three := h.chat(key, "/reset three")
	if q := h.e.rt.QuickTurns(); q != (runs.QuickStats{Folded: 2}) {
		t.Fatalf("quick turns after /reset = %+v, want two folded, none thrown away", q)
	}
	if two.Status != domain.RunOK || three.Status != domain.RunOK || three.SessionID == two.SessionID {
		t.Fatalf("runs = %s in %s, %s in %s", two.Status, two.SessionID, three.Status, three.SessionID)
	}
	got := h.history(key)
	if len(got) != 2 || got[0].Role != domain.RoleUser || got[0].Content.Text() != "three" || got[1].Role != domain.RoleAssistant {
		t.Fatalf("transcript after /reset = %q", texts(got))
	}
	s, err := h.e.store.GetSession(context.Background(), key)
	if err != nil || s.SessionID != three.SessionID || s.UpdatedAt != three.EndedAt {
		t.Fatalf("session = %s updated %d, %v; want %s updated at the run's end %d", s.SessionID, s.UpdatedAt, err, three.SessionID, three.EndedAt)
	}
}
