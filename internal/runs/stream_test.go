package runs

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// streamModel streams its answer in pieces through the request's OnDelta
// before returning it whole.
type streamModel struct{ pieces []string }

func (streamModel) Name() string                   { return "stream" }
func (streamModel) ThinkingLevels(string) []string { return []string{"off"} }
func (m streamModel) Complete(_ context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	whole := ""
	for _, p := range m.pieces {
		whole += p
		if req.OnDelta != nil {
			req.OnDelta(domain.ModelDelta{Text: p})
		}
	}
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.TextContent(whole)}}, nil
}

type streamModels struct{ m streamModel }

func (f streamModels) Resolve(string) (domain.Provider, string, error) { return f.m, "stream", nil }

// A streamed answer reaches live clients piece by piece, each delta
// carrying the text so far, after the run's start and before its end; the
// transcript keeps the answer once, whole.
func TestStreamedAnswerDeltas(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Models = streamModels{streamModel{pieces: []string{"Hel", "lo, ", "world"}}} })
	r := e.wait(e.submit("agent:main:s", "hi", nil).ID)
	if r.Status != domain.RunOK {
		t.Fatalf("run = %s %q", r.Status, r.Error)
	}
	// The end event is published after the run's row is final.
	testkit.WaitFor(t, 10*time.Second, "the run's end event", func() bool { return e.events.index(domain.EventRunEnd, r.ID) >= 0 })
	e.events.mu.Lock()
	var acc []string
	start, end, firstDelta := -1, -1, -1
	for i, ev := range e.events.events {
		switch {
		case ev.Kind == domain.EventDelta && ev.Delta != nil && ev.Delta.RunID == r.ID:
			acc = append(acc, ev.Delta.Accumulated)
			if firstDelta < 0 {
				firstDelta = i
			}
		case ev.Kind == domain.EventRunStart && ev.Run != nil && ev.Run.ID == r.ID:
			start = i
		case ev.Kind == domain.EventRunEnd && ev.Run != nil && ev.Run.ID == r.ID:
			end = i
		}
	}
	e.events.mu.Unlock()
	want := []string{"Hel", "Hello, ", "Hello, world"}
	if got, _ := json.Marshal(acc); string(got) != `["Hel","Hello, ","Hello, world"]` {
		t.Fatalf("deltas = %s, want %q", got, want)
	}
	if start < 0 || end < 0 || start > firstDelta || firstDelta > end {
		t.Fatalf("order: start %d, first delta %d, end %d", start, firstDelta, end)
	}
	msgs, err := e.st.ReadMessages(context.Background(), "agent:main:s", domain.MessageQuery{})
	if err != nil || len(msgs) != 2 || msgs[1].Content.Text() != "Hello, world" {
		t.Fatalf("transcript = %+v, %v", msgs, err)
	}
}

// SubmitSpec runs a turn from the spec its caller already decoded, as
// Submit does from the stored one.
func TestSubmitSpecRunsTheGivenSpec(t *testing.T) {
	e := newEnv(t, nil)
	const key = "agent:main:spec"
	spec := Spec{UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent("from the spec")}}
	raw, _ := json.Marshal(spec)
	r := domain.Run{SessionKey: key, AgentID: "main", Kind: domain.RunKindChat, Spec: raw, Message: "from the spec"}
	run, _, err := e.rt.SubmitSpec(context.Background(), r, spec, nil, func(tx domain.Tx) error {
		return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "sid-spec", Kind: "other"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.wait(run.ID); got.Status != domain.RunOK || got.Reply != "echo: from the spec" {
		t.Fatalf("run = %s %q", got.Status, got.Reply)
	}
}
