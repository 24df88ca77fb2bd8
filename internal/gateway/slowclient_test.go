package gateway

import (
	"fmt"
	"testing"
)

// isSlow reports whether sub has been marked too slow.
func isSlow(sub *subscriber) bool {
	select {
	case <-sub.slow:
		return true
	default:
		return false
	}
}

// TestFanoutDeltaFloodKeepsEvents: a subscribed client whose pump has not
// caught up with a flood of streamed deltas still gets every other event
// of the run, in order, and is not taken for a slow client: deltas stop at
// half the queue.
func TestFanoutDeltaFloodKeepsEvents(t *testing.T) {
	const queue = 64
	f := newFanout()
	sub, _ := f.subscribe(queue)
	f.subscribeMessages(sub, "k", true)
	f.publish(wev("agent", "k", "r1")) // run start
	for range 10 * queue {
		f.publish(wev("agent", "k", "r1", isDelta))
	}
	var want []string
	for i := range queue/2 - 1 {
		name := fmt.Sprintf("session.message%d", i)
		f.publish(wev(name, "k", "r1", onlySub))
		want = append(want, fmt.Sprintf(`"%s" k r1`, name))
	}
	f.publish(wev("chat", "k", "r1", ended))
	want = append(want, `"chat" k r1`)

	if isSlow(sub) {
		t.Fatal("a delta flood marked the client slow")
	}
	all := got(sub)
	if len(all) != queue {
		t.Fatalf("queued %d events, want %d (the start, %d deltas, the rest)", len(all), queue, queue/2-1)
	}
	deltas := 0
	var rest []string
	for _, ev := range all[1:] {
		if ev == `"agent" k r1` {
			deltas++
			continue
		}
		rest = append(rest, ev)
	}
	if all[0] != `"agent" k r1` || deltas != queue/2-1 {
		t.Fatalf("queue starts %q with %d deltas; want the start and %d deltas", all[0], deltas, queue/2-1)
	}
	if fmt.Sprint(rest) != fmt.Sprint(want) {
		t.Fatalf("events after the flood:\n got %v\nwant %v", rest, want)
	}
}

// TestFanoutSlowClientMarked: a client whose queue overflows with events
// that must arrive is marked slow (its pump disconnects it) and queued
// nothing more; the other clients are not affected.
func TestFanoutSlowClientMarked(t *testing.T) {
	const queue = 16
	f := newFanout()
	slow, _ := f.subscribe(queue)
	fast, _ := f.subscribe(queue)
	f.subscribeMessages(slow, "k", true)
	f.subscribeMessages(fast, "k", true)
	for i := range queue {
		f.publish(wev("chat", "k", fmt.Sprint("r", i)))
		got(fast) // the fast client's pump keeps up
	}
	if isSlow(slow) {
		t.Fatal("marked slow with its queue only full")
	}
	f.publish(wev("chat", "k", "over"))
	if !isSlow(slow) {
		t.Fatal("an event that did not fit did not mark the client slow")
	}
	f.publish(wev("chat", "k", "after"))
	if n := len(slow.ch); n != queue {
		t.Fatalf("slow client's queue holds %d, want %d (nothing after the overflow)", n, queue)
	}
	if g := got(fast); fmt.Sprint(g) != fmt.Sprint([]string{`"chat" k over`, `"chat" k after`}) || isSlow(fast) {
		t.Fatalf("fast client got %v (slow %v)", g, isSlow(fast))
	}
}
