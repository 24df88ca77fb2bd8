package runs

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// stepModel blocks on "host" until released and then calls the tool
// "noop"; on "yield" it calls the tool "yield"; after a tool result it
// answers "after tool: <last user text>"; otherwise "echo: <text>". It
// counts its calls and reports each call's last text on started.
type stepModel struct {
	release chan struct{}
	started chan string
	mu      sync.Mutex
	calls   int
	context []string // the texts of the last call's messages
}

func (m *stepModel) Name() string                   { return "step" }
func (m *stepModel) ThinkingLevels(string) []string { return []string{"off"} }
func (m *stepModel) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	m.mu.Lock()
	m.calls++
	m.context = m.context[:0]
	for _, msg := range req.Messages {
		m.context = append(m.context, msg.Content.Text())
	}
	m.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	m.started <- last.Content.Text()
	call := func(name string) (domain.ModelResponse, error) {
		return domain.ModelResponse{Message: domain.Message{Role: "assistant", Content: domain.BlockContent(
			domain.Block{Type: domain.BlockToolCall, ID: domain.NewShortID(4), Name: name, Arguments: json.RawMessage(`{}`)})}}, nil
	}
	switch {
	case last.Role == domain.RoleUser && last.Content.Text() == "host":
		select {
		case <-m.release:
		case <-ctx.Done():
			return domain.ModelResponse{}, ctx.Err()
		}
		return call("noop")
	case last.Role == domain.RoleUser && last.Content.Text() == "hold":
		<-ctx.Done()
		return domain.ModelResponse{}, ctx.Err()
	case last.Role == domain.RoleUser && last.Content.Text() == "yield":
		return call("yield")
	case last.Role == domain.RoleToolResult:
		var user string
		for _, msg := range req.Messages {
			if msg.Role == domain.RoleUser {
				user = msg.Content.Text()
			}
		}
		return domain.ModelResponse{Message: domain.Message{Role: "assistant", Content: domain.TextContent("after tool: " + user)}}, nil
	}
	return domain.ModelResponse{Message: domain.Message{Role: "assistant", Content: domain.TextContent("echo: " + last.Content.Text())}}, nil
}

func (m *stepModel) Resolve(string) (domain.Provider, string, error) { return m, "step", nil }

func (m *stepModel) callCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// yieldHooks ends the turn on the tool "yield", as the engine does for
// sessions_yield.
type yieldHooks struct{ *hooks }

func (y yieldHooks) CallTool(_ context.Context, _ domain.ToolCallContext, name string, _ json.RawMessage) domain.ToolResult {
	res := domain.ToolResult{Content: []domain.Block{domain.TextBlock(`{"status":"yielded","message":"waiting"}`)}}
	if name == "yield" {
		res.EndTurn, res.EndReply = true, "waiting"
	}
	return res
}

func newStepEnv(t *testing.T) (*env, *stepModel) {
	m := &stepModel{release: make(chan struct{}), started: make(chan string, 64)}
	e := newEnv(t, func(o *Options) {
		o.Models = m
		o.Hooks = yieldHooks{o.Hooks.(*hooks)}
	})
	t.Cleanup(func() {
		select {
		case <-m.release:
		default:
			close(m.release)
		}
	})
	return e, m
}

// awaitStart waits until the model starts a call on text.
func awaitStart(t *testing.T, m *stepModel, text string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-m.started:
			if got == text {
				return
			}
		case <-deadline:
			t.Fatalf("the model never started on %q", text)
		}
	}
}

func steerSpec(text string) func(*domain.Run) {
	return func(r *domain.Run) {
		r.Spec, _ = json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent(text)}, Steer: true})
	}
}

func TestSteerJoinsTheRunningRunAtItsNextStep(t *testing.T) {
	e, m := newStepEnv(t)
	const key = "agent:main:s"
	host := e.submit(key, "host", nil)
	awaitStart(t, m, "host")
	// Queued behind the running host: a steer and an ordinary followup.
	steer := e.submit(key, "steer me", steerSpec("steer me"))
	follow := e.submit(key, "plain", nil)
	close(m.release)

	h := e.wait(host.ID)
	if h.Status != domain.RunOK || h.Reply != "echo: steer me" {
		t.Fatalf("host = %s %q %s; want ok with the model having seen the steer message at its next step", h.Status, h.Reply, h.Error)
	}
	s := e.wait(steer.ID)
	if s.Status != domain.RunOK || s.Reply != h.Reply {
		t.Fatalf("steer = %s %q; want the outcome of the run it joined (%q)", s.Status, s.Reply, h.Reply)
	}
	var spec Spec
	if err := json.Unmarshal(s.Spec, &spec); err != nil || spec.JoinedRunID != host.ID || !spec.Steer {
		t.Fatalf("steer spec = %s; want joinedRunId %s", s.Spec, host.ID)
	}
	if f := e.wait(follow.ID); f.Reply != "echo: plain" {
		t.Fatalf("followup = %q; want its own run", f.Reply)
	}
	// The steer message sits in the host's transcript between the tool
	// result and the final answer, stamped with the steer's run id.
	msgs, err := e.st.ReadMessages(context.Background(), key, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range msgs {
		got = append(got, msg.Role+":"+msg.Content.Text())
	}
	want := []string{"user:host", "assistant:", "toolResult:" + `{"status":"yielded","message":"waiting"}`, "user:steer me", "assistant:echo: steer me", "user:plain", "assistant:echo: plain"}
	if !slices.Equal(got, want) {
		t.Fatalf("transcript:\n got %q\nwant %q", got, want)
	}
	if msgs[3].RunID != steer.ID {
		t.Errorf("steer message run = %q, want %q", msgs[3].RunID, steer.ID)
	}
	// A joined steer ends after the run it joined and starts no follow-ups.
	testkit.WaitFor(t, 10*time.Second, "both runs' end events", func() bool {
		return e.events.index(domain.EventRunEnd, host.ID) >= 0 && e.events.index(domain.EventRunEnd, steer.ID) >= 0
	})
	if hostEnd, steerEnd := e.events.index(domain.EventRunEnd, host.ID), e.events.index(domain.EventRunEnd, steer.ID); steerEnd < hostEnd {
		t.Errorf("steer ended at event %d, before its host at %d", steerEnd, hostEnd)
	}
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	for _, r := range e.hooks.finished {
		if r.ID == steer.ID {
			t.Error("the engine's Finished hook ran for a joined steer (it must start no reply-back or announce)")
		}
	}
}

func TestSteerWithNoRunningRunIsAFollowup(t *testing.T) {
	e, _ := newStepEnv(t)
	r := e.submit("agent:main:idle", "hello", steerSpec("hello"))
	if got := e.wait(r.ID); got.Status != domain.RunOK || got.Reply != "echo: hello" {
		t.Fatalf("steer on an idle session = %s %q; want its own run", got.Status, got.Reply)
	}
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	if len(e.hooks.finished) != 1 || e.hooks.finished[0].ID != r.ID {
		t.Fatalf("finished hooks = %d; a steer that became a followup has its follow-ups", len(e.hooks.finished))
	}
}

func TestYieldEndsTheTurnAfterTheToolCall(t *testing.T) {
	e, m := newStepEnv(t)
	const key = "agent:main:y"
	r := e.wait(e.submit(key, "yield", nil).ID)
	if r.Status != domain.RunOK || r.Reply != "waiting" {
		t.Fatalf("yielded run = %s %q %s; want ok with the yield's message as reply", r.Status, r.Reply, r.Error)
	}
	if n := m.callCount(); n != 1 {
		t.Fatalf("model calls = %d; want 1 (no model call after the yield's tool result)", n)
	}
	msgs, err := e.st.ReadMessages(context.Background(), key, domain.MessageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 || msgs[2].Role != domain.RoleToolResult {
		t.Fatalf("transcript = %d messages ending %q; want user, toolCall, toolResult", len(msgs), msgs[len(msgs)-1].Role)
	}
	// The next input starts the next turn, with the yielded turn in context.
	next := e.wait(e.submit(key, "announce: child done", nil).ID)
	if next.Status != domain.RunOK || next.Reply != "echo: announce: child done" {
		t.Fatalf("next turn = %s %q", next.Status, next.Reply)
	}
}

func TestInjectWritesWithoutARun(t *testing.T) {
	e, m := newStepEnv(t)
	const key = "agent:main:n"
	e.wait(e.submit(key, "first", nil).ID)
	before := m.callCount()
	stored, err := e.rt.Inject(context.Background(), key, []domain.Message{{Role: "user", Content: domain.TextContent("fyi")}},
		func(tx domain.Tx) (domain.Session, error) { return tx.GetSession(key) })
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || stored[0].ID == "" || stored[0].Seq == 0 {
		t.Fatalf("stored = %+v; want one message with an id", stored)
	}
	if m.callCount() != before {
		t.Fatal("Inject called the model")
	}
	runs, err := e.st.ListRuns(context.Background(), domain.RunQuery{SessionKey: key})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs = %d, %v; want only the first (Inject starts none)", len(runs), err)
	}
	// The next run's context has the injected message (the context cache
	// was not left without it).
	e.wait(e.submit(key, "second", nil).ID)
	m.mu.Lock()
	seen := slices.Clone(m.context)
	m.mu.Unlock()
	if want := []string{"first", "echo: first", "fyi", "second"}; !slices.Equal(seen, want) {
		t.Fatalf("next run's context = %q; want %q", seen, want)
	}
}

func TestInjectBesideARunningRunReachesTheNextRun(t *testing.T) {
	e, m := newStepEnv(t)
	const key = "agent:main:busy"
	host := e.submit(key, "host", nil)
	awaitStart(t, m, "host")
	if _, err := e.rt.Inject(context.Background(), key, []domain.Message{{Role: "user", Content: domain.TextContent("fyi")}},
		func(tx domain.Tx) (domain.Session, error) { return tx.GetSession(key) }); err != nil {
		t.Fatal(err)
	}
	close(m.release)
	e.wait(host.ID)
	e.wait(e.submit(key, "second", nil).ID)
	m.mu.Lock()
	seen := slices.Clone(m.context)
	m.mu.Unlock()
	if !slices.Contains(seen, "fyi") {
		t.Fatalf("next run's context %q lacks the message written beside the running run (stale context cache)", seen)
	}
}

// TestJoinedSteerOfAStoppedRunIsRecovered: the process stops while the run
// a steer joined is in flight; the steer stays running in the store and
// the next start re-queues it by the crash rule, so it runs as a followup.
func TestJoinedSteerOfAStoppedRunIsRecovered(t *testing.T) {
	e, m := newStepEnv(t)
	const key = "agent:main:stop"
	host := e.submit(key, "host", nil)
	awaitStart(t, m, "host")
	steer := e.submit(key, "hold", steerSpec("hold"))
	close(m.release)
	awaitStart(t, m, "hold") // joined: the model is on the steer's message
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _ := e.st.GetRun(ctx, steer.ID); r.Status != domain.RunRunning {
		t.Fatalf("steer after the stop = %s; want running (resolved at the next start)", r.Status)
	}
	if r, _ := e.st.GetRun(ctx, host.ID); r.Status != domain.RunError {
		t.Fatalf("host after the stop = %s; want error (aborted after a tool call)", r.Status)
	}
	rt2, _ := startOn(t, e.st, nil)
	r, err := rt2.Wait(ctx, steer.ID, 10*time.Second)
	if err != nil || r.Status != domain.RunOK || r.Attempt != 2 || r.Reply != "echo: hold" {
		t.Fatalf("recovered steer = %s attempt %d %q %v; want ok on attempt 2, run as a followup", r.Status, r.Attempt, r.Reply, err)
	}
}

func TestAnnounceStepsDoNotTakeSteers(t *testing.T) {
	for _, k := range []domain.RunKind{domain.RunKindReply, domain.RunKindAnnounce} {
		if takesSteers(k) {
			t.Errorf("a %s run takes steers", k)
		}
	}
	for _, k := range []domain.RunKind{domain.RunKindChat, domain.RunKindInbound, domain.RunKindSend, domain.RunKindSubagent, domain.RunKindAgent} {
		if !takesSteers(k) {
			t.Errorf("a %s run does not take steers", k)
		}
	}
}
