package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/script"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// TestRecoveryAfterCrash starts an engine on a store a dead process left
// with two runs running and one queued: the running one that had executed
// a tool call is recorded as aborted (its waiter answered), the one that
// had not is queued again and completes as attempt 2, the queued one runs.
func TestRecoveryAfterCrash(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	spec, _ := runspec.Encode(runspec.Spec{Spec: runs.Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent("queued hello")}}})
	err = st.Update(ctx, func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", Kind: "main", UpdatedAt: now}); err != nil {
			return err
		}
		if _, _, err := tx.CreateRun(domain.Run{ID: "r-running", SessionKey: "agent:main:main", SessionID: "s1", AgentID: "main", Kind: "chat", Lane: "main", Status: domain.RunRunning, CreatedAt: now, StartedAt: now}); err != nil {
			return err
		}
		if _, err := tx.AppendMessages("agent:main:main", "s1", []domain.Message{
			{Role: "user", Content: domain.TextContent("use a tool"), RunID: "r-running", Timestamp: now},
			{Role: "assistant", RunID: "r-running", Timestamp: now, Content: domain.BlockContent(domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "agents_list", Arguments: []byte(`{}`)})},
		}); err != nil {
			return err
		}
		if err := tx.PutSession(domain.Session{Key: "agent:main:other", AgentID: "main", SessionID: "s2", Kind: "other", UpdatedAt: now}); err != nil {
			return err
		}
		if _, _, err := tx.CreateRun(domain.Run{ID: "r-retry", SessionKey: "agent:main:other", SessionID: "s2", AgentID: "main", Kind: "chat", Lane: "main", Status: domain.RunRunning, Attempt: 1, Spec: spec, CreatedAt: now, StartedAt: now}); err != nil {
			return err
		}
		if _, err := tx.AppendMessages("agent:main:other", "s2", []domain.Message{
			{Role: "user", Content: domain.TextContent("queued hello"), RunID: "r-retry", Timestamp: now},
		}); err != nil {
			return err
		}
		// The queued run has a session of its own: a run that starts on
		// the aborted run's session clears its abortedLastRun (checked
		// below with a later turn).
		if err := tx.PutSession(domain.Session{Key: "agent:main:queued", AgentID: "main", SessionID: "s3", Kind: "other", UpdatedAt: now}); err != nil {
			return err
		}
		_, _, err := tx.CreateRun(domain.Run{ID: "r-queued", SessionKey: "agent:main:queued", AgentID: "main", Kind: "chat", Lane: "main", Status: domain.RunQueued, CreatedAt: now + 1, Spec: spec})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := script.New(nil, time.Now)
	e, err := New(Options{Config: testConfig(), Store: st, Models: scriptModels{m}, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close(ctx); st.Close() }()
	r, err := e.waitRun(ctx, "r-running", 5*time.Second)
	if err != nil || r.Status != domain.RunError || r.Error == "" {
		t.Fatalf("abandoned run = %+v, %v", r, err)
	}
	if rep := e.StartReport(); rep.Requeued != 1 || rep.Aborted != 1 || rep.Resumed != 2 {
		t.Fatalf("start report = %+v", rep)
	}
	rr, err := e.waitRun(ctx, "r-retry", 5*time.Second)
	if err != nil || rr.Status != domain.RunOK || rr.Attempt != 2 || rr.Reply != "echo: queued hello" {
		t.Fatalf("re-queued run = %+v, %v", rr, err)
	}
	if msgs, _ := st.ReadMessages(ctx, "agent:main:other", domain.MessageQuery{}); len(msgs) != 2 {
		t.Fatalf("re-queued run's transcript has %d messages, want its user message once and the reply", len(msgs))
	}
	q, err := e.waitRun(ctx, "r-queued", 5*time.Second)
	if err != nil || q.Status != domain.RunOK || q.Reply != "echo: queued hello" {
		t.Fatalf("queued run = %+v, %v", q, err)
	}
	if r.Error != "aborted: switchboard stopped while the run was in flight" {
		t.Fatalf("aborted error = %q", r.Error)
	}
	// abortedLastRun is on the aborted run's session only.
	for key, want := range map[string]bool{"agent:main:main": true, "agent:main:other": false, "agent:main:queued": false} {
		s, err := st.GetSession(ctx, key)
		if err != nil {
			t.Fatalf("session %s: %v", key, err)
		}
		if s.AbortedLastRun != want {
			t.Fatalf("session %s: abortedLastRun = %v, want %v", key, s.AbortedLastRun, want)
		}
	}
	// The session's next run clears it.
	next, err := e.chat(ctx, api.ChatRequest{SessionKey: "agent:main:main", Message: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if nr, err := e.waitRun(ctx, next.Run.ID, 5*time.Second); err != nil || nr.Status != domain.RunOK {
		t.Fatalf("next run = %+v, %v", nr, err)
	}
	if s, err := st.GetSession(ctx, "agent:main:main"); err != nil || s.AbortedLastRun {
		t.Fatalf("after the next run: abortedLastRun = %v, %v; want cleared", s.AbortedLastRun, err)
	}
}

func TestIdempotentChatAndFIFO(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{{When: config.ScriptWhen{Message: "^one$"}, Reply: str("1"), DelayMs: 200}}, nil)
	ctx := t.Context()
	a, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "one", IdempotencyKey: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "one", IdempotencyKey: "k1"})
	if err != nil || b.Run.ID != a.Run.ID || b.Created {
		t.Fatalf("repeat = %+v, %v (first %s)", b.Run.ID, err, a.Run.ID)
	}
	c, _ := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "two"})
	d, _ := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "three"})
	for _, id := range []string{a.Run.ID, c.Run.ID, d.Run.ID} {
		if _, err := h.e.waitRun(ctx, id, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	got := texts(h.history("main"))
	want := []string{"user: one", "assistant: 1", "user: two", "assistant: echo: two", "user: three", "assistant: echo: three"}
	if len(got) != len(want) {
		t.Fatalf("transcript = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("transcript = %q, want %q (runs of a session are FIFO)", got, want)
		}
	}
}

func TestCancelCascadesAndCommands(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^go$"}, "sessions_send",
			map[string]any{"sessionKey": research, "message": "slow", "timeoutSeconds": 60}),
		{When: config.ScriptWhen{Session: "research$"}, Reply: str("late"), DelayMs: 60_000},
	}, agentVisibility)
	ctx := t.Context()
	res, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "go"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("target run running", func() bool {
		runs := runsOf(h, research, domain.RunKindSend)
		return len(runs) == 1 && runs[0].Status == domain.RunRunning
	})
	stop, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/stop"})
	if err != nil || stop.Command != "stop" {
		t.Fatalf("/stop = %+v, %v", stop, err)
	}
	r, _ := h.e.waitRun(ctx, res.Run.ID, 5*time.Second)
	if r.Status != domain.RunCancelled {
		t.Fatalf("main run = %s", r.Status)
	}
	child := runsOf(h, research, domain.RunKindSend)[0]
	child, _ = h.e.waitRun(ctx, child.ID, 5*time.Second)
	if child.Status != domain.RunCancelled {
		t.Fatalf("cascaded run = %s", child.Status)
	}
	before, _ := h.e.Session(ctx, "main")
	if _, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/new"}); err != nil {
		t.Fatal(err)
	}
	after, _ := h.e.Session(ctx, "main")
	if after.SessionID == before.SessionID || len(h.history("main")) != 0 {
		t.Fatalf("/new kept sessionId %s", after.SessionID)
	}
	// The old transcript is kept under its sessionId.
	old, _ := h.st.ReadMessages(ctx, "agent:main:main", domain.MessageQuery{SessionID: before.SessionID})
	if len(old) == 0 {
		t.Fatalf("old transcript lost")
	}
	sp, _ := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/send off"})
	if sp.Reply != "⚙️ Send policy set to off." {
		t.Fatalf("/send off = %q", sp.Reply)
	}
	if _, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "hello"}); err == nil || err.Error() != "send blocked by session policy" {
		t.Fatalf("chat after /send off: %v", err)
	}
	if _, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/send inherit", Channel: "discord", SenderID: "stranger"}); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("non-owner /send: err = %v, want forbidden", err)
	}
	// A bare /send answers its usage as a reply (OpenClaw's wording) and
	// changes nothing.
	if u, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/send"}); err != nil || u.Reply != "⚙️ Usage: /send on|off|inherit" {
		t.Fatalf("/send = %+v, %v; want the usage as a reply", u, err)
	}
	if _, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "hello"}); err == nil {
		t.Fatalf("a bare /send changed the send policy")
	}
	if _, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/send maybe"}); domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(err.Error(), "usage: /send on|off|inherit") {
		t.Fatalf("/send maybe: err = %v, want the usage as an invalid request", err)
	}
	// inherit clears the override (sessions.patch {sendPolicy: null}).
	if sp, err := h.e.chat(ctx, api.ChatRequest{SessionKey: "main", Message: "/send inherit"}); err != nil || sp.Reply != "⚙️ Send policy set to inherit." {
		t.Fatalf("/send inherit = %+v, %v", sp, err)
	}
	if s, err := h.e.Session(ctx, "agent:main:main"); err != nil || s.SendPolicy != "" {
		t.Fatalf("after /send inherit: sendPolicy %q, %v; want none", s.SendPolicy, err)
	}
}
