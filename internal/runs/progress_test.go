package runs

import (
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestProgressThrottle: a run's progress events come at most once per
// ProgressInterval, the first at once; each carries the latest record;
// runs are throttled independently; the record is always current.
func TestProgressThrottle(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(1_700_000_000_000)}
	var events []domain.Progress
	b := newProgressBoard(clock.now, func(ev domain.Event) {
		if ev.Kind != domain.EventProgress || ev.Progress == nil {
			t.Fatalf("event %+v", ev)
		}
		events = append(events, *ev.Progress)
	})
	b.start(domain.Run{ID: "r1", SessionKey: "agent:main:subagent:a"})
	b.start(domain.Run{ID: "r2", SessionKey: "agent:main:subagent:b"})

	steps := []struct {
		advance time.Duration
		run     string
		step    int
		want    bool // an event goes out
	}{
		{0, "r1", 1, true}, // the first update of a run goes out at once
		{100 * time.Millisecond, "r1", 2, false},
		{0, "r2", 1, true}, // another run has its own interval
		{800 * time.Millisecond, "r1", 3, false},
		{99 * time.Millisecond, "r1", 4, false},                 // 999 ms after the last event
		{1 * time.Millisecond, "r1", 5, true},                   // exactly one interval
		{0, "r1", 6, false},                                     // and then not again at once
		{2 * ProgressInterval, "r1", 7, true},                   // after a quiet spell, at once
		{ProgressInterval - time.Millisecond, "r2", 2, true},    // r2's last was 1.9 s ago
		{ProgressInterval - 2*time.Millisecond, "r2", 3, false}, // 998 ms later
	}
	for i, s := range steps {
		clock.advance(s.advance)
		before := len(events)
		b.update(s.run, func(p *domain.Progress) { p.Step, p.Phase = s.step, "model" })
		sent := len(events) > before
		if sent != s.want {
			t.Fatalf("step %d (%s step %d): sent=%v, want %v", i, s.run, s.step, sent, s.want)
		}
		if sent && (events[len(events)-1].Step != s.step || events[len(events)-1].RunID != s.run) {
			t.Fatalf("step %d: event %+v, want the latest record", i, events[len(events)-1])
		}
		if p, ok := b.get(s.run); !ok || p.Step != s.step {
			t.Fatalf("step %d: record %+v, want step %d at once", i, p, s.step)
		}
	}
	// Over any window of one interval, a run sent at most one event.
	p, _ := b.get("r1")
	if p.ElapsedMs <= 0 {
		t.Fatalf("elapsed = %d", p.ElapsedMs)
	}
	b.end("r1")
	if _, ok := b.get("r1"); ok {
		t.Fatal("an ended run keeps a record")
	}
	before := len(events)
	b.update("r1", func(p *domain.Progress) { p.Step = 99 })
	if len(events) != before {
		t.Fatal("an ended run sent progress")
	}
}

func TestTailText(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"hello", 10, "hello"}, {"hello", 3, "llo"}, {"héllo wörld", 5, "wörld"}, {"", 3, ""}} {
		if got := tailText(c.in, c.n); got != c.want {
			t.Errorf("tailText(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
