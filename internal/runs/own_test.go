package runs

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// followHooks starts a follow-up on session to when a run of text from
// ends (as the a2a exchange starts a reply turn when a send ends).
type followHooks struct {
	*hooks
	from, to, text string
}

func (h followHooks) Finished(tx domain.Tx, r domain.Run, next func(domain.Run) (domain.Run, error)) error {
	if err := h.hooks.Finished(tx, r, next); err != nil {
		return err
	}
	if r.Message != h.from {
		return nil
	}
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent(h.text)}})
	_, err := next(domain.Run{SessionKey: h.to, AgentID: "main", Kind: domain.RunKindReply, ParentRunID: r.ID, Message: h.text, Spec: spec})
	return err
}

// TestOwnWorkOnly: a runtime that carries out only its own work runs its
// run after the run queued ahead of it on the same session, runs the
// follow-ups of its work (after what is queued ahead of them on their
// session), and leaves runs queued on other sessions, and follow-ups of
// runs it did not carry out, queued.
func TestOwnWorkOnly(t *testing.T) {
	// A holding runtime records what `--detach` commands queued earlier.
	held := newEnv(t, func(o *Options) { o.Hold = true })
	const a, b, c, d = "agent:main:a", "agent:main:b", "agent:main:c", "agent:main:d"
	aheadOnA := held.submit(a, "first", nil)
	otherOnB := held.submit(b, "other", nil)
	aheadOnC := held.submit(c, "early", nil)
	held.submit(d, "session row", nil)

	h := followHooks{hooks: &hooks{}, from: "ask", to: c, text: "reply turn"}
	rt, err := New(Options{Store: held.st, Models: fakeModels{held.model}, Hooks: h, OwnWorkOnly: true})
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
	own := &env{t: t, rt: rt, st: held.st, model: held.model, hooks: h.hooks}
	ask := own.submit(a, "ask", nil)
	if ask.Status != domain.RunQueued {
		t.Fatalf("own run on a session with a queued run = %s, want queued behind it", ask.Status)
	}
	if r := own.wait(ask.ID); r.Status != domain.RunOK {
		t.Fatalf("own run = %s %s", r.Status, r.Error)
	}
	followUps, err := held.st.ListRuns(context.Background(), domain.RunQuery{ParentRunID: ask.ID})
	if err != nil || len(followUps) != 1 {
		t.Fatalf("follow-ups of the own run = %d %v", len(followUps), err)
	}
	if r := own.wait(followUps[0].ID); r.Status != domain.RunOK || r.Reply != "echo: reply turn" {
		t.Fatalf("follow-up = %s %q", r.Status, r.Reply)
	}

	// A follow-up submitted outside a run (an announce delivered by the
	// outbox) is this runtime's work when it names one of its runs.
	linked := own.submitCtx(FollowUpOf(context.Background(), ask.ID), d, "announce of own work")
	if r := own.wait(linked.ID); r.Status != domain.RunOK {
		t.Fatalf("follow-up linked by context = %s %s", r.Status, r.Error)
	}
	foreign := own.submitCtx(FollowUpOf(context.Background(), otherOnB.ID), d, "announce of other work")

	if got, want := endOrder(h.hooks), []string{aheadOnA.ID, ask.ID}; !before(got, want) {
		t.Fatalf("runs of a ended in order %v, want %v first", got, want)
	}
	if got, want := endOrder(h.hooks), []string{aheadOnC.ID, followUps[0].ID}; !before(got, want) {
		t.Fatalf("runs of c ended in order %v, want %v first", got, want)
	}
	for _, id := range []string{otherOnB.ID, foreign.ID} {
		r, err := held.st.GetRun(context.Background(), id)
		if err != nil || r.Status != domain.RunQueued || rt.owns(id) {
			t.Fatalf("run %s (%q) not this process's work = %s %v (owned %v), want left queued", id, r.Message, r.Status, err, rt.owns(id))
		}
	}
	if depth := rt.QueueDepth(); depth != 0 {
		t.Fatalf("queue depth = %d, want 0", depth)
	}
}

// TestOwnWorkOnlyIdempotentRepeat: submitting again, with its idempotency
// key, a run another process left queued makes it this runtime's work.
func TestOwnWorkOnlyIdempotentRepeat(t *testing.T) {
	held := newEnv(t, func(o *Options) { o.Hold = true })
	first := held.submit("agent:main:a", "x", func(r *domain.Run) { r.IdempotencyKey = "k" })
	e := newEnv(t, func(o *Options) { o.Store = held.st; o.OwnWorkOnly = true })
	again := e.submit("agent:main:a", "x", func(r *domain.Run) { r.IdempotencyKey = "k" })
	if again.ID != first.ID {
		t.Fatalf("repeat gave run %s, want %s", again.ID, first.ID)
	}
	if r := e.wait(first.ID); r.Status != domain.RunOK {
		t.Fatalf("repeated queued run = %s", r.Status)
	}
}

// submitCtx queues a run of text on key, an existing session, with ctx.
func (e *env) submitCtx(ctx context.Context, key, text string) domain.Run {
	e.t.Helper()
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent(text)}})
	r, _, err := e.rt.Submit(ctx, domain.Run{SessionKey: key, AgentID: "main", Kind: domain.RunKindInbound, Spec: spec, Message: text}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// endOrder lists the ids of the runs h saw end, in order.
func endOrder(h *hooks) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]string, len(h.finished))
	for i, r := range h.finished {
		ids[i] = r.ID
	}
	return ids
}

// before reports whether every id of want ended, in want's order.
func before(got, want []string) bool {
	i := 0
	for _, id := range got {
		if i < len(want) && id == want[i] {
			i++
		}
	}
	return i == len(want)
}
