package loopguard

import (
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBreakerEdgeCount(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Limits{Max: 3, Window: time.Minute}, c.now)
	ab := Edge{From: "a", To: "b"}
	for i := range 3 {
		if p, held := b.Note(ab, nil); held {
			t.Fatalf("message %d held: %+v", i+1, p)
		}
	}
	p, held := b.Note(ab, nil)
	if !held || !strings.Contains(p.Reason, "4 agent-to-agent messages on a → b") || !strings.Contains(p.Reason, "maxMessages 3") {
		t.Fatalf("4th message = %+v, %v; want a pause naming the edge and the limit", p, held)
	}
	// Another edge is not paused; the paused one holds everything until resumed.
	if _, held := b.Note(Edge{From: "b", To: "a"}, nil); held {
		t.Fatal("the reverse edge was paused")
	}
	c.t = c.t.Add(time.Hour)
	if _, held := b.Note(ab, nil); !held {
		t.Fatal("a paused edge let a message through after its window")
	}
	if got := b.List(); len(got) != 1 || got[0].Edge != ab {
		t.Fatalf("list = %+v", got)
	}
	if !b.Resume(ab) || b.Resume(ab) {
		t.Fatal("resume should report the pause once")
	}
	if _, held := b.Note(ab, nil); held {
		t.Fatal("a resumed edge still holds")
	}
}

func TestBreakerWindowForgets(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Limits{Max: 2, Window: time.Minute}, c.now)
	e := Edge{From: "a", To: "b"}
	for range 10 {
		if _, held := b.Note(e, nil); held {
			t.Fatal("messages a window apart tripped the breaker")
		}
		c.t = c.t.Add(31 * time.Second)
	}
}

func TestBreakerCycle(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Limits{Max: 2, Window: time.Minute}, c.now)
	// a → b → c → a → b → c: no edge carries more than 2, the cycle carries 3.
	hops := []struct {
		e     Edge
		chain []string
	}{
		{Edge{"a", "b"}, nil}, {Edge{"b", "c"}, []string{"a"}}, {Edge{"c", "a"}, []string{"a", "b"}},
		{Edge{"a", "b"}, []string{"b", "c"}}, {Edge{"b", "c"}, []string{"c", "a"}},
	}
	held := 0
	var last Pause
	for _, h := range hops {
		if p, ok := b.Note(h.e, h.chain); ok {
			held++
			last = p
		}
	}
	if held != 1 || !strings.Contains(last.Reason, "around the cycle a → b → c → a") {
		t.Fatalf("held %d, last pause %+v", held, last)
	}
	if cycleOf(Edge{"x", "y"}, []string{"a"}) != "" {
		t.Fatal("an open path was named a cycle")
	}
	if got := cycleOf(Edge{"c", "b"}, []string{"a", "b"}); got != "b → c → b" {
		t.Fatalf("cycle = %q", got)
	}
}

func TestBreakerOff(t *testing.T) {
	b := New(Limits{}, nil)
	for range 100 {
		if _, held := b.Note(Edge{"a", "b"}, nil); held {
			t.Fatal("a breaker with Max 0 held a message")
		}
	}
	if b.On() {
		t.Fatal("On with Max 0")
	}
}
