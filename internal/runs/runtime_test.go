package runs

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/pgtest"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"go.uber.org/goleak"
)

// pg is the PostgreSQL cluster of the tests that run on both stores.
var pg pgtest.Shared

// TestMain stops the PostgreSQL cluster, if one started, before looking
// for leaked goroutines.
func TestMain(m *testing.M) { goleak.VerifyTestMain(pgRun{m}) }

type pgRun struct{ m *testing.M }

func (r pgRun) Run() int { return pg.Main(r.m) }

// fakeModel answers "echo: <last text>", blocks on "block" until released
// or cancelled, and calls a tool forever on "loop".
type fakeModel struct {
	release chan struct{}
	started chan string // the text of every call, as it starts
	mu      sync.Mutex
	active  int
	peak    int
}

func (f *fakeModel) Name() string                   { return "fake" }
func (f *fakeModel) ThinkingLevels(string) []string { return []string{"off"} }
func (f *fakeModel) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	f.mu.Lock()
	f.active++
	f.peak = max(f.peak, f.active)
	f.mu.Unlock()
	select {
	case f.started <- req.Messages[len(req.Messages)-1].Content.Text():
	default:
	}
	defer func() { f.mu.Lock(); f.active--; f.mu.Unlock() }()
	last := req.Messages[len(req.Messages)-1]
	text := last.Content.Text()
	switch {
	case text == "block":
		select {
		case <-f.release:
		case <-ctx.Done():
			return domain.ModelResponse{}, ctx.Err()
		}
	case text == "loop" || last.Role == domain.RoleToolResult:
		return domain.ModelResponse{Message: domain.Message{Role: "assistant", Content: domain.BlockContent(
			domain.Block{Type: domain.BlockToolCall, ID: domain.NewShortID(4), Name: "noop", Arguments: json.RawMessage(`{"secret":"s"}`)})}}, nil
	case text == "fail":
		return domain.ModelResponse{}, errors.New("model failed")
	}
	return domain.ModelResponse{Message: domain.Message{Role: "assistant", Content: domain.BlockContent(domain.TextBlock("echo: " + text)),
		Usage: &domain.Usage{Input: 1, Output: 1, TotalTokens: 2}}}, nil
}

type fakeModels struct{ m *fakeModel }

func (f fakeModels) Resolve(string) (domain.Provider, string, error) { return f.m, "fake", nil }

// hooks records what the runtime asks of the engine.
type hooks struct {
	mu       sync.Mutex
	finished []domain.Run
}

func (h *hooks) Prepare(context.Context, domain.Run, domain.Session) (Plan, error) {
	return Plan{ModelRef: "fake"}, nil
}
func (h *hooks) CallTool(context.Context, domain.ToolCallContext, string, json.RawMessage) domain.ToolResult {
	return domain.ToolResult{Content: []domain.Block{domain.TextBlock("ok")}}
}
func (h *hooks) Finished(tx domain.Tx, r domain.Run, next func(domain.Run) (domain.Run, error)) error {
	h.mu.Lock()
	h.finished = append(h.finished, r)
	h.mu.Unlock()
	return nil
}
func (h *hooks) AfterFinish(domain.Run) {}
func (h *hooks) PersistToolCall(name string, args json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"secret":"[redacted]"}`)
}

type env struct {
	t      *testing.T
	rt     *Runtime
	st     *sqlite.Store
	model  *fakeModel
	hooks  *hooks
	events *eventLog
}

// eventLog records the events a runtime emits, in order.
type eventLog struct {
	mu     sync.Mutex
	events []domain.Event
}

func (l *eventLog) emit(ev domain.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

// index returns the position of the first event of kind for run id, or -1.
func (l *eventLog) index(kind, id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, ev := range l.events {
		if ev.Kind == kind && ev.Run != nil && ev.Run.ID == id {
			return i
		}
	}
	return -1
}

func newEnv(t *testing.T, mutate func(*Options)) *env {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{release: make(chan struct{}), started: make(chan string, 64)}
	h := &hooks{}
	log := &eventLog{}
	opts := Options{Store: st, Models: fakeModels{m}, Hooks: h, MaxSteps: 5, Lanes: map[domain.Lane]int{domain.LaneMain: 2}, Emit: log.emit}
	if mutate != nil {
		mutate(&opts)
	}
	rt, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, rt: rt, st: st, model: m, hooks: h, events: log}
	t.Cleanup(func() {
		select {
		case <-m.release:
		default:
			close(m.release)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	return e
}

// submit queues a run of text on key (creating the session row).
func (e *env) submit(key, text string, mut func(*domain.Run)) domain.Run {
	e.t.Helper()
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent(text)}})
	r := domain.Run{SessionKey: key, AgentID: "main", Kind: domain.RunKindChat, Spec: spec, Message: text}
	if mut != nil {
		mut(&r)
	}
	run, _, err := e.rt.Submit(context.Background(), r, func(tx domain.Tx) error {
		if _, err := tx.GetSession(key); err == nil {
			return nil
		}
		return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "sid-" + key, Kind: "other"})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return run
}

func (e *env) wait(id string) domain.Run {
	e.t.Helper()
	r, err := e.rt.Wait(context.Background(), id, 10*time.Second)
	if err != nil || !domain.RunTerminal(r.Status) {
		e.t.Fatalf("wait %s: %+v %v", id, r.Status, err)
	}
	return r
}

func TestLaneIsFIFOAndSessionsRunInParallel(t *testing.T) {
	e := newEnv(t, nil)
	a1 := e.submit("agent:main:a", "block", nil)
	a2 := e.submit("agent:main:a", "second", nil)
	b1 := e.submit("agent:main:b", "block", nil)
	// b1 runs beside a1; a2 must not start while a1 blocks.
	timeout := time.After(5 * time.Second)
	for blocked := 0; blocked < 2; {
		select {
		case text := <-e.model.started:
			if text != "block" {
				t.Fatalf("%q started while its session's first run blocked", text)
			}
			blocked++
		case <-timeout:
			t.Fatal("two sessions did not run in parallel")
		}
	}
	close(e.model.release)
	for _, id := range []string{a1.ID, a2.ID, b1.ID} {
		if r := e.wait(id); r.Status != domain.RunOK {
			t.Fatalf("run %s: %s %s", id, r.Status, r.Error)
		}
	}
	// The runtime's own events order the lane: a2 started only after a1
	// ended, while b1 started before a1 ended (in parallel).
	a1End, a2Start := e.events.index(domain.EventRunEnd, a1.ID), e.events.index(domain.EventRunStart, a2.ID)
	if a1End < 0 || a2Start < a1End {
		t.Fatalf("a2 started at event %d, a1 ended at event %d: a session's second run started while the first ran", a2Start, a1End)
	}
	if b1Start := e.events.index(domain.EventRunStart, b1.ID); b1Start < 0 || b1Start > a1End {
		t.Fatalf("b1 started at event %d, after a1 ended at %d: sessions did not run in parallel", b1Start, a1End)
	}
	if got := e.wait(a2.ID).Reply; got != "echo: second" {
		t.Fatalf("a2 reply = %q", got)
	}
}

func TestWaitTimeoutIsNotRunFailure(t *testing.T) {
	e := newEnv(t, nil)
	r := e.submit("agent:main:a", "block", nil)
	got, err := e.rt.Wait(context.Background(), r.ID, 50*time.Millisecond)
	if err != nil || domain.RunTerminal(got.Status) {
		t.Fatalf("wait that ran out = %s, %v; want a non-terminal status", got.Status, err)
	}
	close(e.model.release)
	if done := e.wait(r.ID); done.Status != domain.RunOK {
		t.Fatalf("run = %s", done.Status)
	}
	// An ended run answers at once.
	again, err := e.rt.Wait(context.Background(), r.ID, 0)
	if err != nil || again.Status != domain.RunOK {
		t.Fatalf("second wait = %s %v", again.Status, err)
	}
}

func TestTimeoutCancelAndErrors(t *testing.T) {
	e := newEnv(t, nil)
	timed := e.submit("agent:main:t", "block", func(r *domain.Run) { r.TimeoutMs = 50 })
	if r := e.wait(timed.ID); r.Status != domain.RunTimeout {
		t.Fatalf("timeout run = %s %s", r.Status, r.Error)
	}
	running := e.submit("agent:main:c", "block", nil)
	queued := e.submit("agent:main:c", "after", func(r *domain.Run) { r.ParentRunID = running.ID })
	if _, err := e.rt.Cancel(context.Background(), running.ID); err != nil {
		t.Fatal(err)
	}
	if r := e.wait(running.ID); r.Status != domain.RunCancelled {
		t.Fatalf("cancelled run = %s", r.Status)
	}
	if r := e.wait(queued.ID); r.Status != domain.RunCancelled {
		t.Fatalf("child of the cancelled run = %s (cancel must cascade)", r.Status)
	}
	if r := e.wait(e.submit("agent:main:f", "fail", nil).ID); r.Status != domain.RunError || r.Error != "model failed" {
		t.Fatalf("failing model = %s %q", r.Status, r.Error)
	}
	loop := e.wait(e.submit("agent:main:l", "loop", nil).ID)
	if loop.Status != domain.RunError || !strings.Contains(loop.Error, "step limit") {
		t.Fatalf("tool loop = %s %q", loop.Status, loop.Error)
	}
	msgs, _ := e.st.ReadMessages(context.Background(), "agent:main:l", domain.MessageQuery{})
	for _, m := range msgs {
		for _, b := range m.Content.ToolCalls() {
			if string(b.Arguments) != `{"secret":"[redacted]"}` {
				t.Fatalf("tool-call arguments stored unredacted: %s", b.Arguments)
			}
		}
	}
}

func TestIdempotencyAndHold(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Hold = true })
	a := e.submit("agent:main:a", "x", func(r *domain.Run) { r.IdempotencyKey = "k" })
	b := e.submit("agent:main:a", "x", func(r *domain.Run) { r.IdempotencyKey = "k" })
	if a.ID != b.ID {
		t.Fatalf("same idempotency key gave runs %s and %s", a.ID, b.ID)
	}
	// A runtime without Hold on the same store picks it up.
	log2 := &eventLog{}
	rt2, err := New(Options{Store: e.st, Models: fakeModels{e.model}, Hooks: e.hooks, Emit: log2.emit})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer rt2.Close(context.Background())
	if r, err := rt2.Wait(context.Background(), a.ID, 10*time.Second); err != nil || r.Status != domain.RunOK {
		t.Fatalf("resumed run = %s %v", r.Status, err)
	}
	// The held runtime never started it: the run's start came from rt2.
	if i := e.events.index(domain.EventRunStart, a.ID); i >= 0 {
		t.Fatalf("held runtime started run %s (event %d)", a.ID, i)
	}
	if log2.index(domain.EventRunStart, a.ID) < 0 {
		t.Fatalf("rt2 emitted no start for run %s", a.ID)
	}
}

// TestIdleLaneClaimsAtSubmit: a run for an idle session is claimed in the
// transaction that creates it; a run behind it queues; cancelling the
// claimed run at once still reaches it.
func TestIdleLaneClaimsAtSubmit(t *testing.T) {
	e := newEnv(t, nil)
	a := e.submit("agent:main:a", "block", nil)
	if a.Status != domain.RunRunning {
		t.Fatalf("run on an idle lane = %s, want running", a.Status)
	}
	b := e.submit("agent:main:a", "second", nil)
	if b.Status != domain.RunQueued {
		t.Fatalf("run behind it = %s, want queued", b.Status)
	}
	if _, err := e.rt.Cancel(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	if r := e.wait(a.ID); r.Status != domain.RunCancelled {
		t.Fatalf("cancelled claimed run = %s", r.Status)
	}
	if r := e.wait(b.ID); r.Status != domain.RunOK || r.Reply != "echo: second" {
		t.Fatalf("queued run after it = %s %q", r.Status, r.Reply)
	}
	msgs, _ := e.st.ReadMessages(context.Background(), "agent:main:a", domain.MessageQuery{})
	if len(msgs) == 0 || msgs[0].Content.Text() != "block" || msgs[0].RunID != a.ID {
		t.Fatalf("the claimed run's inbound message = %+v", msgs)
	}
}
