package runs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// deadProcess writes what a process killed mid-run leaves in a store: a
// session and one run left running, with the messages it had stored.
func deadProcess(t *testing.T, st *sqlite.Store, key, runID string, attempt int, msgs ...domain.Message) {
	t.Helper()
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent("hello")}})
	now := time.Now().UnixMilli()
	err := st.Update(context.Background(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "sid-" + key, Kind: "other", UpdatedAt: now}); err != nil {
			return err
		}
		if _, _, err := tx.CreateRun(domain.Run{ID: runID, SessionKey: key, SessionID: "sid-" + key, AgentID: "main", Kind: domain.RunKindChat,
			Lane: domain.LaneMain, Status: domain.RunRunning, Attempt: attempt, Spec: spec, Message: "hello", CreatedAt: now, StartedAt: now}); err != nil {
			return err
		}
		all := append([]domain.Message{{Role: "user", Content: domain.TextContent("hello"), RunID: runID, Timestamp: now}}, msgs...)
		for i := range all {
			all[i].RunID = runID
		}
		_, err := tx.AppendMessages(key, "sid-"+key, all)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// startOn starts a runtime on st whose model answers at once.
func startOn(t *testing.T, st *sqlite.Store, mirror Mirror) (*Runtime, *hooks) {
	t.Helper()
	m := &fakeModel{release: make(chan struct{}), started: make(chan string, 64)}
	close(m.release)
	h := &hooks{}
	rt, err := New(Options{Store: st, Models: fakeModels{m}, Hooks: h, Mirror: mirror, MaxSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return rt, h
}

func countRole(t *testing.T, st *sqlite.Store, key, runID, role string) int {
	t.Helper()
	msgs, err := st.ReadMessages(context.Background(), key, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		if m.RunID == runID && m.Role == role {
			n++
		}
	}
	return n
}

// TestCrashRuleAtStart: a run a dead process left running is queued again
// once when none of its tool calls had executed, and aborted when one had
// or when it already was its second attempt.
func TestCrashRuleAtStart(t *testing.T) {
	toolCall := domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(
		domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "noop", Arguments: json.RawMessage(`{}`)})}
	toolResult := domain.Message{Role: domain.RoleToolResult, ToolCallID: "c1", ToolName: "noop", Content: domain.TextContent("ok")}
	cases := []struct {
		name        string
		attempt     int
		msgs        []domain.Message
		wantStatus  domain.RunStatus
		wantAttempt int
		requeued    int
	}{
		{"no tool call: re-queued as attempt 2", 1, nil, domain.RunOK, 2, 1},
		{"old row without attempt: re-queued", 0, nil, domain.RunOK, 2, 1},
		{"tool call asked, not answered: aborted", 1, []domain.Message{toolCall}, domain.RunError, 1, 0},
		{"tool call executed: aborted", 1, []domain.Message{toolCall, toolResult}, domain.RunError, 1, 0},
		{"second attempt died too: aborted", 2, nil, domain.RunError, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, t.TempDir())
			defer st.Close()
			const key, id = "agent:main:s", "r1"
			deadProcess(t, st, key, id, tc.attempt, tc.msgs...)
			rt, h := startOn(t, st, nil)
			if rep := rt.Report(); rep.Requeued != tc.requeued || rep.Aborted != 1-tc.requeued {
				t.Fatalf("report = %+v", rep)
			}
			r, err := rt.Wait(context.Background(), id, 10*time.Second)
			if err != nil || r.Status != tc.wantStatus || r.Attempt != tc.wantAttempt {
				t.Fatalf("run = %s attempt %d %q, %v; want %s attempt %d", r.Status, r.Attempt, r.Error, err, tc.wantStatus, tc.wantAttempt)
			}
			s, _ := st.GetSession(context.Background(), key)
			if tc.wantStatus == domain.RunError {
				if r.Error != AbortedError || !s.AbortedLastRun {
					t.Fatalf("aborted run: error %q, abortedLastRun %v", r.Error, s.AbortedLastRun)
				}
			} else if r.Reply != "echo: hello" {
				t.Fatalf("reply = %q", r.Reply)
			}
			// The inbound message is stored once, whatever happened.
			if n := countRole(t, st, key, id, domain.RoleUser); n != 1 {
				t.Fatalf("user messages of the run = %d, want 1", n)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if len(h.finished) != 1 || h.finished[0].ID != id {
				t.Fatalf("Finished hook calls = %+v, want the run once (its waiters and follow-ups)", h.finished)
			}
		})
	}
}

// TestGracefulStopFollowsCrashRule: Close interrupts a run in its model
// call (no tool call yet): it is queued again as attempt 2, not aborted,
// and the next start completes it with its inbound message stored once
// and mirrored with the reply.
func TestGracefulStopFollowsCrashRule(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	defer st.Close()
	m := &fakeModel{release: make(chan struct{}), started: make(chan string, 64)}
	rt, err := New(Options{Store: st, Models: fakeModels{m}, Hooks: &hooks{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, rt: rt, st: st, model: m}
	r := e.submit("agent:main:g", "block", nil)
	<-m.started
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := st.GetRun(context.Background(), r.ID)
	if got.Status != domain.RunQueued || got.Attempt != 2 {
		t.Fatalf("after Close: %s attempt %d, want queued attempt 2", got.Status, got.Attempt)
	}
	mirror := transcript.New(dir, nil)
	rt2, _ := startOn(t, st, mirror)
	// The model blocks on "block" again; this one releases at once.
	done, err := rt2.Wait(context.Background(), r.ID, 10*time.Second)
	if err != nil || done.Status != domain.RunOK || done.Attempt != 2 {
		t.Fatalf("second attempt = %+v, %v", done, err)
	}
	if n := countRole(t, st, r.SessionKey, r.ID, domain.RoleUser); n != 1 {
		t.Fatalf("user messages = %d, want 1", n)
	}
	rt2.Close(context.Background())
	requireMirrorEqualsStore(t, st, mirror, r.SessionKey, "main", "sid-"+r.SessionKey)
}

func requireMirrorEqualsStore(t *testing.T, st *sqlite.Store, m *transcript.Mirror, key, agentID, sid string) {
	t.Helper()
	msgs, err := st.ReadMessages(context.Background(), key, domain.MessageQuery{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	_, entries, _, err := transcript.ReadFile(m.Path(agentID, sid))
	if err != nil {
		t.Fatalf("mirror of %s: %v", key, err)
	}
	var ids []string
	for _, e := range entries {
		if e.Type == transcript.TypeMessage {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) != len(msgs) {
		t.Fatalf("mirror of %s has %d messages, store %d", key, len(ids), len(msgs))
	}
	for i := range msgs {
		if ids[i] != msgs[i].ID {
			t.Fatalf("mirror of %s: message %d is %s, store has %s", key, i, ids[i], msgs[i].ID)
		}
	}
}

// TestMirrorCatchesUpAtStart: a deleted .jsonl and a truncated one are
// brought back to the store's content at start, and counted.
func TestMirrorCatchesUpAtStart(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	defer st.Close()
	mirror := transcript.New(dir, nil)
	rt, _ := startOn(t, st, mirror)
	e := &env{t: t, rt: rt, st: st}
	keys := []string{"agent:main:a", "agent:main:b", "agent:main:c"}
	for _, k := range keys {
		for i := 0; i < 3; i++ {
			e.wait(e.submit(k, "hi", nil).ID)
		}
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		requireMirrorEqualsStore(t, st, mirror, k, "main", "sid-"+k)
	}
	// a: deleted; b: lost its last two lines and half of another.
	if err := os.Remove(mirror.Path("main", "sid-agent:main:a")); err != nil {
		t.Fatal(err)
	}
	pb := mirror.Path("main", "sid-agent:main:b")
	data, err := os.ReadFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, data[:len(data)*2/3], 0o600); err != nil {
		t.Fatal(err)
	}
	mirror2 := transcript.New(dir, nil)
	rt2, _ := startOn(t, st, mirror2)
	if got := rt2.Report().MirrorRepaired; got != 2 {
		t.Fatalf("MirrorRepaired = %d, want 2", got)
	}
	for _, k := range keys {
		requireMirrorEqualsStore(t, st, mirror2, k, "main", "sid-"+k)
	}
}

// TestRetryAfterResetEndsCancelled: a process stored a run's message and
// died in its model call after a reset of the session had committed (the
// reset cancels the running run through its context, which died with the
// process). At the next start the run is re-queued by the crash rule; its
// session is now in a new transcript generation that does not hold its
// message. The retry ends cancelled, as the reset asked, without calling
// the model: its message stays stored once, in the archived generation
// its run row names, and the new generation gets nothing of it.
func TestRetryAfterResetEndsCancelled(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, t.TempDir())
	defer st.Close()
	const key, id = "agent:main:reset", "r1"
	deadProcess(t, st, key, id, 1)
	// The reset's commit: a new generation.
	err := st.Update(ctx, func(tx domain.Tx) error {
		s, err := tx.GetSession(key)
		if err != nil {
			return err
		}
		s.SessionID = "sid-new"
		return tx.PutSession(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{release: make(chan struct{}), started: make(chan string, 64)}
	close(m.release)
	h := &hooks{}
	rt, err := New(Options{Store: st, Models: fakeModels{m}, Hooks: h, MaxSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	if rep := rt.Report(); rep.Requeued != 1 {
		t.Fatalf("report = %+v, want the run re-queued", rep)
	}
	r, err := rt.Wait(ctx, id, 10*time.Second)
	if err != nil || r.Status != domain.RunCancelled || r.Error != resetCancelText || r.Attempt != 2 {
		t.Fatalf("run = %s attempt %d %q, %v; want cancelled attempt 2 %q", r.Status, r.Attempt, r.Error, err, resetCancelText)
	}
	if r.SessionID != "sid-"+key {
		t.Errorf("run's generation = %q, want the one holding its message (%q)", r.SessionID, "sid-"+key)
	}
	select {
	case text := <-m.started:
		t.Errorf("the model was called (%q) for a run whose session was reset", text)
	default:
	}
	for _, g := range []struct {
		sid  string
		want int
	}{{"sid-" + key, 1}, {"sid-new", 0}} {
		msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{SessionID: g.sid})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, msg := range msgs {
			if msg.RunID == id {
				n++
			}
		}
		if n != g.want {
			t.Errorf("generation %s holds %d messages of the run, want %d", g.sid, n, g.want)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.finished) != 1 || h.finished[0].ID != id || h.finished[0].Status != domain.RunCancelled {
		t.Fatalf("Finished hook calls = %+v, want the run once, cancelled (its waiters and follow-ups)", h.finished)
	}
}
