package channels

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// endingGate is a fakeGate whose runs end when ended is closed.
type endingGate struct {
	fakeGate
	ended chan struct{}
}

func (g *endingGate) WaitRun(ctx context.Context, _ api.Principal, _ api.WaitRequest) (domain.Run, error) {
	select {
	case <-g.ended:
		return domain.Run{Status: domain.RunOK}, nil
	case <-ctx.Done():
		return domain.Run{}, ctx.Err()
	}
}

// StreamRun passes on the text so far of the run's text deltas only, and
// returns when the run ends.
func TestRouterStreamRun(t *testing.T) {
	g := &endingGate{ended: make(chan struct{})}
	evs := make(chan domain.Event, 10)
	stopped := make(chan struct{})
	r := NewRouter(RouterOptions{Gate: g, Config: func() *config.Config { return &config.Config{} },
		Events: func(int) (<-chan domain.Event, func()) { return evs, func() { close(stopped) } }})
	delta := func(run, piece, acc string) domain.Event {
		return domain.Event{Kind: domain.EventDelta, Delta: &domain.RunDelta{RunID: run, Delta: domain.ModelDelta{Text: piece}, Accumulated: acc}}
	}
	evs <- delta("run-1", "he", "he")
	evs <- delta("run-2", "xx", "xx")
	evs <- domain.Event{Kind: domain.EventDelta, Delta: &domain.RunDelta{RunID: "run-1", Delta: domain.ModelDelta{ToolCall: &domain.ToolCallDelta{Name: "t"}}}}
	evs <- delta("run-1", "llo", "hello")
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() { done <- r.StreamRun(context.Background(), "run-1", func(s string) { got <- s }) }()
	for _, want := range []string{"he", "hello"} {
		select {
		case s := <-got:
			if s != want {
				t.Fatalf("streamed %q, want %q", s, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q not streamed", want)
		}
	}
	close(g.ended)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("StreamRun went on after the run ended")
	}
	select {
	case <-stopped:
	default:
		t.Error("the event subscription was not ended")
	}
	if len(got) != 0 {
		t.Errorf("streamed more: %q", <-got)
	}
}
