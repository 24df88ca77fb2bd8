package runs

import (
	"context"
	"encoding/json"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// gateModel answers "echo: <last text>". Its first call, when hold is set,
// tells entered and waits for open (or its context); with tool set, that
// first call then answers with a tool call. It streams the delta "par" in
// that first call before it tells entered (streamFirst) or after open
// (streamLate).
type gateModel struct {
	hold, tool              bool
	streamFirst, streamLate bool
	entered                 chan struct{}
	release                 chan struct{}
	once                    sync.Once

	mu    sync.Mutex
	calls [][]domain.Message // the context of every call
}

func newGateModel(hold, tool bool) *gateModel {
	return &gateModel{hold: hold, tool: tool, entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (g *gateModel) open() { g.once.Do(func() { close(g.release) }) }

func (g *gateModel) Name() string                   { return "gate" }
func (g *gateModel) ThinkingLevels(string) []string { return []string{"off"} }
func (g *gateModel) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	g.mu.Lock()
	g.calls = append(g.calls, slices.Clone(req.Messages))
	first := len(g.calls) == 1
	g.mu.Unlock()
	if first && g.hold {
		if g.streamFirst && req.OnDelta != nil {
			req.OnDelta(domain.ModelDelta{Text: "par"})
		}
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			return domain.ModelResponse{}, ctx.Err()
		}
		if g.streamLate && req.OnDelta != nil {
			req.OnDelta(domain.ModelDelta{Text: "par"})
		}
		if g.tool {
			return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(
				domain.Block{Type: domain.BlockToolCall, ID: "call1", Name: "noop", Arguments: json.RawMessage(`{}`)})}}, nil
		}
	}
	text := req.Messages[len(req.Messages)-1].Content.Text()
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.TextContent("echo: " + text),
		Usage: &domain.Usage{Input: 3, Output: 2, TotalTokens: 5}}}, nil
}

func (g *gateModel) callCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.calls)
}

type gateModels struct{ m *gateModel }

func (f gateModels) Resolve(string) (domain.Provider, string, error) { return f.m, "gate", nil }

const quickKey = "agent:main:quick"

// quickEnv is an env whose model is g, with a session row for quickKey
// (sessionId "sid1") and the given grace for quick turns.
func quickEnv(t *testing.T, g *gateModel, grace time.Duration) *env {
	return quickEnvAt(t, g, grace, nil)
}

// quickEnvAt is quickEnv with a runtime whose clock is now (nil: the
// time), the session row last updated at its first reading.
func quickEnvAt(t *testing.T, g *gateModel, grace time.Duration, now func() time.Time) *env {
	t.Helper()
	e := newEnv(t, func(o *Options) {
		o.Models = gateModels{g}
		if now != nil {
			o.Now = now
		}
	})
	t.Cleanup(g.open) // (runs before the env's cleanup closes the runtime)
	e.rt.quickGrace = grace
	updated := int64(1)
	if now != nil {
		updated = now().UnixMilli()
	}
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: quickKey, AgentID: "main", SessionID: "sid1", Kind: "other", UpdatedAt: updated})
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// quickRun is a chat turn of text on quickKey.
func quickRun(text string) domain.Run {
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text)}})
	return domain.Run{SessionKey: quickKey, AgentID: "main", Kind: domain.RunKindChat, Spec: spec, Message: text}
}

// ensureQuickSession is the prepare of a submission: it creates the
// session row (sessionId "sid-new") when there is none.
func ensureQuickSession(tx domain.Tx) error {
	if _, err := tx.GetSession(quickKey); err == nil {
		return nil
	}
	return tx.PutSession(domain.Session{Key: quickKey, AgentID: "main", SessionID: "sid-new", Kind: "other"})
}

type submitted struct {
	run     domain.Run
	created bool
	err     error
}

// submitResetMeanwhile submits a quick turn, resets its session (new
// sessionId sid2) while the model is answering, then lets the model answer
// and returns what Submit gave.
func (e *env) submitResetMeanwhile(t *testing.T, g *gateModel) submitted {
	t.Helper()
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: quickKey, AgentID: "main", SessionID: "sid2", Kind: "other", UpdatedAt: 2})
	})
	if err != nil {
		t.Fatal(err)
	}
	g.open()
	return receive(t, res, "Submit")
}

// submitAsync submits r and hands its result to the returned channel.
func (e *env) submitAsync(r domain.Run) <-chan submitted {
	ch := make(chan submitted, 1)
	go func() {
		run, created, err := e.rt.Submit(context.Background(), r, ensureQuickSession)
		ch <- submitted{run, created, err}
	}()
	return ch
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing within 10 s", what)
		panic("unreachable")
	}
}

// sessionEvents renders the events of key but its progress records:
// kind, and the role and text of a message or the text of a delta.
func (l *eventLog) sessionEvents(key string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ev := range l.events {
		if ev.SessionKey != key || ev.Kind == domain.EventProgress {
			continue // (progress records are paced by the clock)
		}
		s := ev.Kind
		switch {
		case ev.Message != nil:
			s += ":" + string(ev.Message.Role) + ":" + ev.Message.Content.Text()
		case ev.Delta != nil:
			s += ":" + ev.Delta.Delta.Text
		}
		out = append(out, s)
	}
	return out
}

func quickTranscript(t *testing.T, st *sqlite.Store, sessionID string) []string {
	t.Helper()
	msgs, err := st.ReadMessages(context.Background(), quickKey, domain.MessageQuery{SessionID: sessionID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Role)+":"+m.Content.Text())
	}
	return out
}

// TestQuickTurnOneTransactionNothingShownBefore: a chat turn on an idle
// session whose model answers is written by one writer fn; while the model
// holds the unsaved message nothing of the turn is stored, published or
// acknowledged; after the commit its events go out in the usual order.
func TestQuickTurnOneTransactionNothingShownBefore(t *testing.T) {
	g := newGateModel(true, false)
	e := quickEnv(t, g, time.Hour) // the fold is under test, not the grace
	before := e.st.Stats()
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")

	if evs := e.events.sessionEvents(quickKey); len(evs) != 0 {
		t.Fatalf("events before the commit: %q", evs)
	}
	if msgs := quickTranscript(t, e.st, "sid1"); len(msgs) != 0 {
		t.Fatalf("transcript before the commit: %q", msgs)
	}
	if runs, err := e.st.ListRuns(context.Background(), domain.RunQuery{SessionKey: quickKey}); err != nil || len(runs) != 0 {
		t.Fatalf("runs before the commit: %+v %v", runs, err)
	}
	select {
	case s := <-res:
		t.Fatalf("Submit returned before the commit: %+v", s)
	default:
	}

	g.open()
	s := receive(t, res, "Submit")
	if s.err != nil || !s.created || s.run.Status != domain.RunRunning {
		t.Fatalf("Submit = %s created=%v %v; want a new running run", s.run.Status, s.created, s.err)
	}
	run := e.wait(s.run.ID)
	if run.Status != domain.RunOK || run.Reply != "echo: hi" || run.SessionID != "sid1" || run.StartedAt == 0 || run.EndedAt < run.StartedAt {
		t.Fatalf("run = %+v", run)
	}
	if got, want := quickTranscript(t, e.st, "sid1"), []string{"user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("transcript = %q, want %q", got, want)
	}
	want := []string{"run.start", "message:user:hi", "message:assistant:echo: hi", "run.end", "session"}
	if got := e.events.sessionEvents(quickKey); !slices.Equal(got, want) {
		t.Fatalf("events = %q\nwant %q", got, want)
	}
	if n := e.st.Stats().Updates - before.Updates; n != 1 {
		t.Fatalf("the turn ran %d writer fns, want 1", n)
	}
	if q := e.rt.QuickTurns(); q != (QuickStats{Folded: 1}) {
		t.Fatalf("quick turns = %+v", q)
	}
	sess, err := e.st.GetSession(context.Background(), quickKey)
	if err != nil || sess.UpdatedAt != run.EndedAt || sess.InputTokens != 3 || sess.OutputTokens != 2 || sess.Model != "fake" {
		t.Fatalf("session row = %+v %v", sess, err)
	}
	acc, err := e.st.GetAccounts(context.Background(), []string{quickKey})
	if err != nil || acc[quickKey].Usage.Self.Runs != 1 || acc[quickKey].Usage.Self.InputTokens != 3 {
		t.Fatalf("account = %+v %v", acc[quickKey], err)
	}
}

// TestQuickTurnSessionResetMeanwhile: the session is reset while the model
// answers; the answer (given on the old transcript) is thrown away, never
// shown, and the turn runs again in the new transcript.
func TestQuickTurnSessionResetMeanwhile(t *testing.T) {
	g := newGateModel(true, false)
	e := quickEnv(t, g, time.Hour)
	s := e.submitResetMeanwhile(t, g)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if run := e.wait(s.run.ID); run.Status != domain.RunOK || run.SessionID != "sid2" {
		t.Fatalf("run = %s in %s", run.Status, run.SessionID)
	}
	if got := quickTranscript(t, e.st, "sid1"); len(got) != 0 {
		t.Fatalf("old transcript got %q", got)
	}
	if got, want := quickTranscript(t, e.st, "sid2"), []string{"user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("new transcript = %q, want %q", got, want)
	}
	if n := g.callCount(); n != 2 {
		t.Fatalf("model calls = %d, want 2 (the answer on the old transcript thrown away)", n)
	}
	want := []string{"run.start", "message:user:hi", "message:assistant:echo: hi", "run.end", "session"}
	if got := e.events.sessionEvents(quickKey); !slices.Equal(got, want) {
		t.Fatalf("events = %q\nwant %q (nothing of the thrown-away answer)", got, want)
	}
	if q := e.rt.QuickTurns(); q.Folded != 0 || q.Discarded != 1 {
		t.Fatalf("quick turns = %+v", q)
	}
}

// TestQuickTurnSessionDeletedMeanwhile: the session is deleted while the
// model answers; the turn goes the ordinary way (its prepare creates the
// session again) and answers there.
func TestQuickTurnSessionDeletedMeanwhile(t *testing.T) {
	g := newGateModel(true, false)
	e := quickEnv(t, g, time.Hour)
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	if err := e.st.Update(context.Background(), func(tx domain.Tx) error { return tx.DeleteSession(quickKey) }); err != nil {
		t.Fatal(err)
	}
	g.open()
	s := receive(t, res, "Submit")
	if s.err != nil {
		t.Fatal(s.err)
	}
	if run := e.wait(s.run.ID); run.Status != domain.RunOK || run.SessionID != "sid-new" {
		t.Fatalf("run = %s in %s", run.Status, run.SessionID)
	}
	if got, want := quickTranscript(t, e.st, "sid-new"), []string{"user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("transcript = %q, want %q", got, want)
	}
	if q := e.rt.QuickTurns(); q.Folded != 0 || q.Discarded != 1 {
		t.Fatalf("quick turns = %+v", q)
	}
}

// TestQuickTurnInjectMeanwhile: a message injected into the transcript
// while the model answers makes the turn go the ordinary way; the model is
// asked again and sees it. The clock stands still: the injection still
// moves the session row's updatedAt, which the commit checks.
func TestQuickTurnInjectMeanwhile(t *testing.T) {
	g := newGateModel(true, false)
	at := time.UnixMilli(1_800_000_000_000)
	e := quickEnvAt(t, g, time.Hour, func() time.Time { return at })
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	_, err := e.rt.Inject(context.Background(), quickKey, []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("note")}},
		func(tx domain.Tx) (domain.Session, error) { return tx.GetSession(quickKey) })
	if err != nil {
		t.Fatal(err)
	}
	g.open()
	s := receive(t, res, "Submit")
	if s.err != nil {
		t.Fatal(s.err)
	}
	e.wait(s.run.ID)
	if got, want := quickTranscript(t, e.st, "sid1"), []string{"user:note", "user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("transcript = %q, want %q", got, want)
	}
	g.mu.Lock()
	last := g.calls[len(g.calls)-1]
	g.mu.Unlock()
	if len(last) != 2 || last[0].Content.Text() != "note" {
		t.Fatalf("the model's second call saw %d messages; want the injected one first", len(last))
	}
}

// TestQuickTurnGracePassesClaimsFirst: a model that does not answer within
// the grace gets its turn's claim committed first; Submit returns the
// running run, the held delta is published after the run's start, and the
// answer, when it comes, ends the run without a second model call.
func TestQuickTurnGracePassesClaimsFirst(t *testing.T) {
	g := newGateModel(true, false)
	e := quickEnv(t, g, time.Nanosecond)
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	s := receive(t, res, "Submit") // while the model still holds
	if s.err != nil || s.run.Status != domain.RunRunning {
		t.Fatalf("Submit = %s %v", s.run.Status, s.err)
	}
	if r, err := e.st.GetRun(context.Background(), s.run.ID); err != nil || r.Status != domain.RunRunning {
		t.Fatalf("stored run = %s %v; want running", r.Status, err)
	}
	if got := quickTranscript(t, e.st, "sid1"); !slices.Equal(got, []string{"user:hi"}) {
		t.Fatalf("transcript after the claim = %q", got)
	}
	if got, want := e.events.sessionEvents(quickKey), []string{"run.start", "message:user:hi"}; !slices.Equal(got, want) {
		t.Fatalf("events after the claim = %q, want %q", got, want)
	}
	g.open()
	if run := e.wait(s.run.ID); run.Status != domain.RunOK || run.Reply != "echo: hi" {
		t.Fatalf("run = %s %q", run.Status, run.Reply)
	}
	if n := g.callCount(); n != 1 {
		t.Fatalf("model calls = %d, want 1", n)
	}
	if q := e.rt.QuickTurns(); q != (QuickStats{Claimed: 1}) {
		t.Fatalf("quick turns = %+v", q)
	}
}

// TestQuickTurnToolCallAfterResetStartsOver: the model answers a tool call
// after the session was reset; the claim (committed then, in the new
// transcript) finds the session changed, so the tool call given on the old
// transcript is neither stored nor executed and the model is asked again.
func TestQuickTurnToolCallAfterResetStartsOver(t *testing.T) {
	g := newGateModel(true, true)
	g.streamLate = true // its delta claims, and the claim finds the reset
	e := quickEnv(t, g, time.Hour)
	s := e.submitResetMeanwhile(t, g)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if run := e.wait(s.run.ID); run.Status != domain.RunOK || run.Reply != "echo: hi" {
		t.Fatalf("run = %s %q", run.Status, run.Reply)
	}
	if got, want := quickTranscript(t, e.st, "sid2"), []string{"user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("transcript = %q, want %q (no tool call of the old transcript)", got, want)
	}
	if got := e.events.sessionEvents(quickKey); slices.Contains(got, "delta:par") {
		t.Fatalf("the thrown-away answer's delta was published: %q", got)
	}
}

// TestQuickTurnFirstDeltaClaimsAtOnce: a model that streams is answering
// at length; its first delta commits the claim at once (not after the
// grace) and is published right after, while the model goes on.
func TestQuickTurnFirstDeltaClaimsAtOnce(t *testing.T) {
	g := newGateModel(true, false)
	g.streamFirst = true
	e := quickEnv(t, g, time.Hour) // only the delta may end the wait
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	s := receive(t, res, "Submit") // while the model still holds
	if s.err != nil || !s.created || s.run.Status != domain.RunRunning {
		t.Fatalf("Submit = %s created=%v %v; want a new running run", s.run.Status, s.created, s.err)
	}
	if r, err := e.st.GetRun(context.Background(), s.run.ID); err != nil || r.Status != domain.RunRunning {
		t.Fatalf("stored run = %s %v; want running", r.Status, err)
	}
	if got, want := e.events.sessionEvents(quickKey), []string{"run.start", "message:user:hi", "delta:par"}; !slices.Equal(got, want) {
		t.Fatalf("events while the model streams = %q, want %q", got, want)
	}
	g.open()
	if run := e.wait(s.run.ID); run.Status != domain.RunOK || run.Reply != "echo: hi" {
		t.Fatalf("run = %s %q", run.Status, run.Reply)
	}
	if got, want := quickTranscript(t, e.st, "sid1"), []string{"user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("transcript = %q, want %q", got, want)
	}
	if n := g.callCount(); n != 1 {
		t.Fatalf("model calls = %d, want 1 (the streamed answer kept)", n)
	}
	if q := e.rt.QuickTurns(); q != (QuickStats{Claimed: 1}) {
		t.Fatalf("quick turns = %+v", q)
	}
}

// TestQuickTurnToolCallGoesOn: a tool call ends the quick part: the claim
// is committed, then the run goes on from the model's answer (one call for
// it, not two) as an ordinary run.
func TestQuickTurnToolCallGoesOn(t *testing.T) {
	g := newGateModel(true, true)
	g.streamLate = true
	e := quickEnv(t, g, time.Hour)
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	g.open()
	s := receive(t, res, "Submit")
	if s.err != nil {
		t.Fatal(s.err)
	}
	if run := e.wait(s.run.ID); run.Status != domain.RunOK {
		t.Fatalf("run = %s %s", run.Status, run.Error)
	}
	got := quickTranscript(t, e.st, "sid1")
	if len(got) != 4 || got[0] != "user:hi" || got[1] != "assistant:" || got[2] != "toolResult:ok" {
		t.Fatalf("transcript = %q; want the user message, the tool call, its result, the answer", got)
	}
	if n := g.callCount(); n != 2 {
		t.Fatalf("model calls = %d, want 2 (the first answer kept)", n)
	}
	want := []string{"run.start", "message:user:hi", "delta:par"}
	if evs := e.events.sessionEvents(quickKey); len(evs) < 3 || !slices.Equal(evs[:3], want) {
		t.Fatalf("events = %q; want them to begin %q", evs, want)
	}
}

// TestQuickTurnIdempotentRetryMeanwhile: a retry with the same idempotency
// key while the first submission's model answers creates the run (the lane
// is busy: it queues); the first submission's fold finds the key taken,
// writes nothing and returns that run; the turn is answered once.
func TestQuickTurnIdempotentRetryMeanwhile(t *testing.T) {
	g := newGateModel(true, false)
	e := quickEnv(t, g, time.Hour)
	r := quickRun("hi")
	r.IdempotencyKey = "k1"
	res := e.submitAsync(r)
	receive(t, g.entered, "model call")
	retry, created, err := e.rt.Submit(context.Background(), r, ensureQuickSession)
	if err != nil || !created || retry.Status != domain.RunQueued {
		t.Fatalf("retry = %s created=%v %v; want a new queued run", retry.Status, created, err)
	}
	g.open()
	s := receive(t, res, "Submit")
	if s.err != nil || s.created || s.run.ID != retry.ID {
		t.Fatalf("first submission = %s created=%v %v; want the retry's run %s, not created", s.run.ID, s.created, s.err, retry.ID)
	}
	if run := e.wait(retry.ID); run.Status != domain.RunOK {
		t.Fatalf("run = %s", run.Status)
	}
	if got, want := quickTranscript(t, e.st, "sid1"), []string{"user:hi", "assistant:echo: hi"}; !slices.Equal(got, want) {
		t.Fatalf("transcript = %q, want %q", got, want)
	}
	if runs, _ := e.st.ListRuns(context.Background(), domain.RunQuery{SessionKey: quickKey}); len(runs) != 1 {
		t.Fatalf("%d runs stored, want 1", len(runs))
	}
}

// TestQuickTurnStopMeanwhileKeepsCrashRule: the runtime stops while a
// quick turn's model answers. The turn's claim is committed (Submit had
// not returned: it returns the run) and the interrupted run, which
// executed no tool, is queued again once, as any run; the next runtime
// answers it, with the user message stored once.
func TestQuickTurnStopMeanwhileKeepsCrashRule(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := newGateModel(true, false)
	defer g.open()
	rt, err := New(Options{Store: st, Models: gateModels{g}, Hooks: &hooks{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt.quickGrace = time.Hour
	if err := st.Update(context.Background(), func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: quickKey, AgentID: "main", SessionID: "sid1", Kind: "other"})
	}); err != nil {
		t.Fatal(err)
	}
	res := make(chan submitted, 1)
	go func() {
		run, created, err := rt.Submit(context.Background(), quickRun("hi"), ensureQuickSession)
		res <- submitted{run, created, err}
	}()
	receive(t, g.entered, "model call")
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := receive(t, res, "Submit")
	if s.err != nil {
		t.Fatal(s.err)
	}
	r, err := st.GetRun(context.Background(), s.run.ID)
	if err != nil || r.Status != domain.RunQueued || r.Attempt != 2 {
		t.Fatalf("interrupted run = %s attempt %d %v; want queued again, attempt 2", r.Status, r.Attempt, err)
	}
	rt2, err := New(Options{Store: st, Models: gateModels{g}, Hooks: &hooks{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer rt2.Close(context.Background())
	if r, err := rt2.Wait(context.Background(), s.run.ID, 10*time.Second); err != nil || r.Status != domain.RunOK {
		t.Fatalf("resumed run = %s %v", r.Status, err)
	}
	msgs, err := st.ReadMessages(context.Background(), quickKey, domain.MessageQuery{})
	if err != nil || len(msgs) != 2 || msgs[0].Content.Text() != "hi" || msgs[1].Content.Text() != "echo: hi" {
		t.Fatalf("transcript = %+v %v; want the user message once and the answer", msgs, err)
	}
}

// TestQuickTurnNotForNewSessionsOrOtherKinds: a turn whose session does not
// exist yet, and runs of other kinds, go the ordinary way.
func TestQuickTurnNotForNewSessionsOrOtherKinds(t *testing.T) {
	g := newGateModel(false, false)
	e := newEnv(t, func(o *Options) { o.Models = gateModels{g} })
	e.rt.quickGrace = time.Hour
	e.wait(e.submit("agent:main:fresh", "hi", nil).ID)
	waitLaneIdle(t, e.rt, "agent:main:fresh")
	send := e.submit("agent:main:fresh", "hi", func(r *domain.Run) { r.Kind = domain.RunKindSend })
	e.wait(send.ID)
	if q := e.rt.QuickTurns(); q != (QuickStats{}) {
		t.Fatalf("quick turns = %+v, want none", q)
	}
	waitLaneIdle(t, e.rt, "agent:main:fresh")
	e.wait(e.submit("agent:main:fresh", "again", nil).ID)
	if q := e.rt.QuickTurns(); q.Folded != 1 {
		t.Fatalf("quick turns = %+v, want the chat turn on the existing session folded", q)
	}
}

// TestRecentEndsBounded: the ends kept for waits after their executor
// exited are the newest, at most recentRuns of them and recentBytes.
func TestRecentEndsBounded(t *testing.T) {
	var r recentEnds
	for i := range recentRuns + 2 {
		id := "run" + strconv.Itoa(i)
		r.add(id, &domain.Run{ID: id, Status: domain.RunOK})
	}
	if len(r.byID) != recentRuns {
		t.Fatalf("%d ends kept, want %d", len(r.byID), recentRuns)
	}
	if r.byID["run0"] != nil || r.byID["run1"] != nil || r.byID["run2"] == nil || r.byID["run"+strconv.Itoa(recentRuns+1)] == nil {
		t.Fatal("not the newest ends kept")
	}
	big := strings.Repeat("x", recentBytes/4)
	for i := range 8 {
		id := "big" + strconv.Itoa(i)
		r.add(id, &domain.Run{ID: id, Status: domain.RunOK, Reply: big})
	}
	if r.bytes > recentBytes || r.byID["big7"] == nil || r.byID["big0"] != nil {
		t.Fatalf("%d bytes kept (bound %d); newest kept: %v", r.bytes, recentBytes, r.byID["big7"] != nil)
	}
	r.add("huge", &domain.Run{ID: "huge", Reply: big + big + big + big})
	if r.byID["huge"] != nil || r.byID["big7"] == nil {
		t.Fatal("a run over the bound on its own was kept, or pushed the others out")
	}
	if len(r.order)-r.head != len(r.byID) {
		t.Fatalf("order holds %d ids, map %d", len(r.order)-r.head, len(r.byID))
	}
}

// TestQuickTurnPatchMeanwhile: a patch of the session (its model here)
// while the model answers makes the turn go the ordinary way, even when
// the patch leaves updatedAt as it was.
func TestQuickTurnPatchMeanwhile(t *testing.T) {
	g := newGateModel(true, false)
	e := quickEnv(t, g, time.Hour)
	res := e.submitAsync(quickRun("hi"))
	receive(t, g.entered, "model call")
	err := e.st.Update(context.Background(), func(tx domain.Tx) error {
		s, err := tx.GetSession(quickKey)
		if err != nil {
			return err
		}
		s.ModelOverride = "other"
		return tx.PutSession(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	g.open()
	s := receive(t, res, "Submit")
	if s.err != nil {
		t.Fatal(s.err)
	}
	e.wait(s.run.ID)
	if q := e.rt.QuickTurns(); q.Folded != 0 || q.Discarded != 1 {
		t.Fatalf("quick turns = %+v; want the answer given before the patch thrown away", q)
	}
	if n := g.callCount(); n != 2 {
		t.Fatalf("model calls = %d, want 2", n)
	}
}

// waitLaneIdle waits until key's lane is free: a run's waiter may return
// while its executor is on its way out (a turn is quick only on an idle
// lane). The executor has nothing left to wait for, so yielding the
// processor is enough.
func waitLaneIdle(t *testing.T, rt *Runtime, key string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !rt.LaneIdle(key) {
		if time.Now().After(deadline) {
			t.Fatalf("lane of %s still busy after 10 s", key)
		}
		goruntime.Gosched()
	}
}

func TestSameSession(t *testing.T) {
	a := domain.Session{Key: "k", SessionID: "s", UpdatedAt: 5, Delivery: &domain.DeliveryContext{Channel: "c", To: "t"}, Origin: &domain.Origin{Provider: "p"}}
	b := a
	b.Delivery = &domain.DeliveryContext{Channel: "c", To: "t"} // same values, another pointer
	b.Origin = &domain.Origin{Provider: "p"}
	if !sameSession(a, b) {
		t.Fatal("equal rows with distinct pointers differ")
	}
	for name, change := range map[string]func(*domain.Session){
		"sessionId":  func(s *domain.Session) { s.SessionID = "s2" },
		"updatedAt":  func(s *domain.Session) { s.UpdatedAt++ },
		"delivery":   func(s *domain.Session) { s.Delivery = &domain.DeliveryContext{Channel: "c", To: "u"} },
		"no origin":  func(s *domain.Session) { s.Origin = nil },
		"thinking":   func(s *domain.Session) { s.ThinkingLevel = "high" },
		"archivedAt": func(s *domain.Session) { s.ArchivedAt = 1 },
	} {
		c := b
		change(&c)
		if sameSession(a, c) {
			t.Errorf("%s: changed row reported the same", name)
		}
	}
}
